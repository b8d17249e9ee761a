import type { INestApplication } from '@nestjs/common';
import { McpTestingClient } from 'nest-mcp/testing';

/** What docs/skills.md shows of the testing kit, as a function a test calls with its application. */
export async function checkSkills(app: INestApplication): Promise<void> {
  // #region docs:testing
  const client = await McpTestingClient.create(app);
  const skills = await client.listSkills(); // every page of skills/list
  const rollback = await client.getSkill('skill://ops/rollback/SKILL.md');
  const files = await client.readDirectory('skill://ops/rollback'); // [{ uri, name, mimeType, size }, …]
  const guide = await client.readResource('skill://ops/rollback/references/CHECKLIST.md');
  // A caller with a token: lists and skills/get follow its scopes.
  const outsider = client.as({ subject: 'intern', scopes: ['ops:read'] });
  await outsider.listSkills(); // no ops/hotfix
  // #endregion docs:testing
  if (skills.length === 0 || rollback.resources === 'dynamic' || files.length === 0 || guide.text().length === 0) {
    throw new Error('the skills example lost its skills');
  }
}
