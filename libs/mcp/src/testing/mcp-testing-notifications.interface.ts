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

/** A notification the server sent for a request, as received (`notifications/progress`, `notifications/message`, …). */
export interface McpTestingNotification {
  method: string;
  params?: Record<string, unknown>;
}
