import { Injectable } from '@nestjs/common';
import {
  McpCtx,
  McpTool,
  McpToolContext,
  type CountingProgressEmitter,
  type PercentageCompleteProgressEmitter,
} from 'nest-mcp';

/** The emitters under the progress-emitter design's names (ADR 0021): aliases of `PercentProgress` and `CountingProgress`. */
@Injectable()
export class MigrationTools {
  // #region docs:emitter-names
  @McpTool({ description: 'Migrates the tables, then counts the rows it checked' })
  async migrate(@McpCtx() ctx: McpToolContext): Promise<string> {
    const migration: PercentageCompleteProgressEmitter = ctx.percentProgress();
    migration.complete(0.5, 'Copied the schema'); // complete(fraction) is emit(fraction)
    migration.complete(0.9, 'Copied the rows');
    const checks: CountingProgressEmitter = ctx.countingProgress(); // one order per request: continues above 0.9
    checks.advance(1, 'Checked the first table');
    return 'migrated';
  }
  // #endregion docs:emitter-names
}
