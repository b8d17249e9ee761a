import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:skill-roots
@Module({
  imports: [
    McpModule.forRoot({
      name: 'billing',
      version: '1.0.0',
      skills: {
        roots: [
          // skills/refunds/SKILL.md → skill://refunds/SKILL.md; skills/acme/invoices/SKILL.md → skill://acme/invoices/SKILL.md
          'skills',
          // Served under skill://internal/…, only to tokens with skills:internal, and left out of the lists.
          { directory: 'internal-skills', prefix: 'internal', scopes: ['skills:internal'], listed: false },
        ],
        directoryRead: true, // resources/directory/read (the default)
        ttlMs: 5 * 60_000, // cache hints of skills/list, skills/get and directory reads (2026-07-28)
        cacheScope: 'public',
      },
    }),
  ],
})
export class BillingModule {}
// #endregion docs:skill-roots
