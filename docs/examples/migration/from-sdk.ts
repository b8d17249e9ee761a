import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server';
import { McpTool } from 'nest-mcp';
import { z } from 'zod';

/** The tool as the official SDK registers it. */
export function registerWithTheSdk(server: McpServer): void {
  // #region docs:before
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  // #endregion docs:before
}

/** The same tool on a Nest provider. */
@Injectable()
export class MathTools {
  // #region docs:after
  @McpTool({ description: 'Adds two numbers', input: z.object({ a: z.number(), b: z.number() }) })
  add({ a, b }: { a: number; b: number }) {
    return String(a + b);
  }
  // #endregion docs:after
}
