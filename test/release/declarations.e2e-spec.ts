import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** Under the repository's node_modules, so that the declarations resolve @nestjs/*, rxjs… as an installed package would. */
const CACHE = join(ROOT, 'node_modules/.cache/nest-mcp-declarations');

/**
 * An application's view of the package, type-checked against the built declarations only. It uses the public API the
 * way the guides do, and `@ts-expect-error` marks what only nest-mcp itself may call: each of those lines must fail,
 * so a member that leaks back into the declarations fails this file.
 */
const CONSUMER = `
import { Injectable, Module } from '@nestjs/common';
import {
  McpArgs, McpCtx, McpError, McpErrorCode, McpForm, McpInput, McpModule, McpRegistry, McpTool, McpToolContext,
  MrtrContext, McpResourceContext, FormSchema, DoubleProgress, SchemaDefinitionError, type McpModuleOptions,
} from 'nest-mcp';
import { McpListenStream, McpTestingClient, McpToolCallResult } from 'nest-mcp/testing';
import { InMemoryTaskStore, MCP_TASK_STORE, type McpTaskStore, type McpTaskRecord } from 'nest-mcp/backend';

const Confirm = McpForm.object({ confirm: McpForm.boolean(), note: McpForm.string().optional() });

@Injectable()
export class DeployTools {
  constructor(private readonly registry: McpRegistry) {}

  @McpTool({ name: 'deploy', description: 'Deploys a service', input: { type: 'object', properties: { name: { type: 'string' } } } })
  async deploy(@McpArgs('name') name: string, @McpCtx() ctx: McpToolContext): Promise<string> {
    ctx.countingProgress(2).emit('started');
    const answer = await ctx.elicit('confirm', McpInput.form(\`Deploy \${name}?\`, Confirm));
    if (answer.action !== 'accept' || !answer.content.confirm) throw new McpError(McpErrorCode.InvalidParams, 'declined');
    ctx.log('info', { name, note: answer.content.note, signal: ctx.signal.aborted });
    return \`\${ctx.handlerName()} \${name} (request \${ctx.requestId})\`;
  }

  enablePing(): void {
    this.registry.registerTool({ name: 'ping', description: 'Answers pong' }, (_input, ctx) => \`pong from \${ctx.handlerName()}\`);
  }
}

const options: McpModuleOptions = { name: 'deployer', version: '1.0.0' };

@Module({ imports: [McpModule.forRoot(options)], providers: [DeployTools] })
export class AppModule {}

export async function deployText(client: McpTestingClient): Promise<string> {
  const result: McpToolCallResult = await client.callTool('deploy', { name: 'api' });
  const stream: McpListenStream = await client.listen({ toolsListChanged: true });
  await stream.close();
  return result.isError ? '' : result.text();
}

/** What a backend writes against nest-mcp/backend: a store under the token nest-mcp injects. */
export const taskStore: { provide: symbol; useValue: McpTaskStore } = {
  provide: MCP_TASK_STORE,
  useValue: new InMemoryTaskStore({ maxTasksPerOwner: 10, maxTasks: 100 }),
};
export type StoredTask = McpTaskRecord;

export function uriOf(ctx: McpResourceContext): string {
  return ctx.uri;
}

declare const registry: McpRegistry;
declare const context: McpToolContext;
declare const form: FormSchema<{ confirm: boolean }>;
declare const sink: never;
// @ts-expect-error contexts are made by nest-mcp for each call
new McpToolContext();
// @ts-expect-error
new MrtrContext();
// @ts-expect-error the factory of contexts is internal
MrtrContext.open;
// @ts-expect-error the request scope is internal
context.scope;
// @ts-expect-error
context.complete();
// @ts-expect-error
context.httpRequest;
// @ts-expect-error entries are added through registerTool
registry.addTool;
// @ts-expect-error
registry.completeDiscovery();
// @ts-expect-error
registry.listTools();
// @ts-expect-error
registry.getTool('deploy');
// @ts-expect-error
registry.changes$;
// @ts-expect-error forms are built with McpForm.object
new FormSchema({ type: 'object' });
// @ts-expect-error
FormSchema.of;
form.requestedSchema;
// @ts-expect-error progress emitters come from the context
new DoubleProgress(sink);
// @ts-expect-error
SchemaDefinitionError.of;
// @ts-expect-error results are made by McpTestingClient
new McpToolCallResult({ content: [] }, { notifications: [], inputRequests: [], rounds: 1 });
// @ts-expect-error
McpToolCallResult.of;
// @ts-expect-error streams are opened by client.listen
new McpListenStream(new AbortController(), Promise.resolve());
`;

/** Every `.d.ts` under `dir`. */
function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

/** Runs tsc; resolves with its output, rejects with it (the compiler's diagnostics) when it fails. */
async function tsc(args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [TSC, ...args], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/**
 * The declarations the package ships are built as `nest build mcp` builds them (libs/mcp/tsconfig.lib.json, with
 * `stripInternal`): nothing marked `@internal` may remain, and what remains must stand on its own.
 */
describe('published declarations', () => {
  let work: string;
  let dist: string;

  beforeAll(async () => {
    mkdirSync(CACHE, { recursive: true });
    work = mkdtempSync(join(CACHE, 'run-'));
    dist = join(work, 'dist');
    await tsc(['-p', 'libs/mcp/tsconfig.lib.json', '--emitDeclarationOnly', '--outDir', dist]);
    copyFileSync(join(ROOT, 'libs/mcp/package.json'), join(dist, 'package.json'));
    // Installed as an application installs it, so that `nest-mcp/testing` and `nest-mcp/backend` go through the
    // package's `exports`.
    mkdirSync(join(work, 'node_modules'));
    symlinkSync(relative(join(work, 'node_modules'), dist), join(work, 'node_modules/nest-mcp'), 'dir');
  }, 180_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('contain no member or declaration marked @internal', () => {
    const files = declarationFiles(dist);
    expect(files.length).toBeGreaterThan(50);
    const leaks = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          line.includes('@internal') ? [`${relative(dist, file)}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(leaks, 'an @internal comment that stripInternal did not remove (is it on a declaration?)').toEqual([]);
  });

  it('type-check on their own (skipLibCheck off), and a consumer of nest-mcp, nest-mcp/testing and nest-mcp/backend compiles against them', async () => {
    writeFileSync(join(work, 'consumer.ts'), CONSUMER);
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'ES2023',
          lib: ['ES2023'],
          types: ['node'],
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          skipLibCheck: false,
          noEmit: true,
        },
        // Every shipped declaration, also those no entry point reaches, plus the application.
        include: ['consumer.ts', 'dist/**/*.d.ts'],
      }),
    );
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await expect(tsc(['-p', join(work, 'tsconfig.json')])).resolves.toBe('');
  }, 180_000);
});
