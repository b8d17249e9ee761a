import type { McpLogLevel } from '../protocol/mcp-wire.interface.js';

/** One `notifications/progress` of a call (the token left out). */
export interface McpProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** One `notifications/message` of a call (`ctx.log`). */
export interface McpLogEntry {
  level: McpLogLevel;
  logger?: string;
  data: unknown;
}
