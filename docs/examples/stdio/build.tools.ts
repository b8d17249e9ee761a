import { Injectable } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { McpArgs, McpCtx, McpTool, McpToolContext } from 'nest-mcp';

/** Reads a whole stream as text. */
async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let result = '';
  for await (const chunk of stream) result += chunk.toString();
  return result;
}

@Injectable()
export class BuildTools {
  // #region docs:wrap
  @McpTool({
    description: 'Builds a package',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  async build(@McpArgs('name') name: string, @McpCtx() ctx: McpToolContext) {
    // The build script prints ProgressEvent lines (and anything else) on stderr, its report on stdout.
    const child = spawn('node', ['scripts/build.mjs', name], { signal: ctx.signal, stdio: ['ignore', 'pipe', 'pipe'] });
    const [report, , [code]] = await Promise.all([
      text(child.stdout),
      ctx.progressFrom(child.stderr),
      once(child, 'close'),
    ]);
    return code === 0 ? report : `The build of ${name} failed (exit code ${code}).`;
  }
  // #endregion docs:wrap
}
