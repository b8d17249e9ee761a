import { Injectable } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpArgs, McpCtx, McpTool, McpToolContext, McpToolError } from 'nest-mcp';
import { OPS_WRITE, OpsScopes } from '../access/index.js';
import { locateBuildScript } from './build-script.locator.js';
import { BuildPackageDto, BuildReportDto } from './dto/index.js';

/** Reads a whole stream as text. */
async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let result = '';
  for await (const chunk of stream) result += chunk.toString();
  return result;
}

/**
 * `build_package`: wraps a real command, scripts/build.mjs, which compiles one of this repository's packages file by
 * file and reports each file as an NDJSON `ProgressEvent` line on stderr. `ctx.progressFrom` turns those lines into
 * the call's progress (its other stderr lines into log lines); cancelling the call kills the command.
 */
@Injectable()
@OpsScopes(OPS_WRITE)
export class BuildPackageTool {
  private readonly script = locateBuildScript();

  // #region docs:build-package
  @McpTool({
    name: 'build_package',
    title: 'Build a package',
    description:
      "Builds one of this repository's packages (mcp, cli or mcp-redis) with scripts/build.mjs, reporting progress per " +
      'compiled file; takes one to a few seconds. Cancelling the call stops the build.',
    input: BuildPackageDto,
    output: BuildReportDto,
    annotations: { idempotentHint: true },
  })
  async buildPackage(@McpArgs('package') name: string, @McpCtx() ctx: McpToolContext): Promise<BuildReportDto> {
    const out = await mkdtemp(join(tmpdir(), `ops-console-build-${name}-`));
    try {
      // The request's traceparent, so that the command's events carry its trace ids.
      const traceparent =
        typeof ctx.requestMeta.traceparent === 'string' ? { TRACEPARENT: ctx.requestMeta.traceparent } : {};
      const child = spawn(process.execPath, [this.script, name, '--out', out], {
        signal: ctx.signal,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...traceparent },
      });
      const [report, , [code]] = await Promise.all([
        text(child.stdout),
        ctx.progressFrom(child.stderr),
        once(child, 'close'),
      ]);
      if (code !== 0)
        throw new McpToolError(`The build of ${name} failed (exit code ${code}); its output is in the server's log.`);
      return JSON.parse(report) as BuildReportDto;
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }
  // #endregion docs:build-package
}
