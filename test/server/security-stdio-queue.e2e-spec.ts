import { ConsoleLogger, type LoggerService } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpStdio, type McpStdioServer } from 'nest-mcp';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamingModule, StreamProbe } from '../fixtures/streaming.fixture.js';
import { exposeGc, retainedBytes } from '../support/memory.util.js';
import { LineCollector, modernMeta } from '../support/stdio.harness.js';
import { until } from '../support/wait.util.js';

/**
 * Issue #13, item 10c: a stdio host that stops reading stdout while a handler logs as fast as it can. The server's
 * queue is bounded like an HTTP response's (`streaming.maxQueuedFrames` / `maxQueuedBytes`): log lines are dropped
 * (with one warning on stderr), progress is coalesced, and the response still arrives once the host reads again.
 */

/** Keeps the warnings the application logs (stderr in a real stdio server). */
class RecordingLogger extends ConsoleLogger implements LoggerService {
  readonly warnings: string[] = [];
  override log(): void {}
  override error(): void {}
  override debug(): void {}
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

interface Stalled {
  moduleRef: TestingModule;
  server: McpStdioServer;
  stdin: PassThrough;
  stdout: PassThrough;
  logger: RecordingLogger;
}

let current: Stalled | undefined;

afterEach(async () => {
  if (!current) return;
  current.stdout.resume();
  await current.server.close();
  await current.moduleRef.close();
  current = undefined;
});

/** A stdio server on streams whose stdout nobody reads yet. */
async function stalledServer(): Promise<Stalled> {
  const moduleRef = await Test.createTestingModule({ imports: [StreamingModule] }).compile();
  const logger = new RecordingLogger();
  moduleRef.useLogger(logger);
  const stdin = new PassThrough();
  const stdout = new PassThrough({ highWaterMark: 16 * 1024 });
  const server = await McpStdio.attach(moduleRef, { stdin, stdout });
  current = { moduleRef, server, stdin, stdout, logger };
  return current;
}

const call = (id: number, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta(meta) } })}\n`;

describe('stdio: a host that does not read stdout', () => {
  it('30 MB of log lines: retained memory stays bounded, one warning, and the response arrives when reading resumes', async () => {
    const gc = exposeGc();
    const { moduleRef, stdin, stdout, logger } = await stalledServer();
    const probe = moduleRef.get(StreamProbe);
    const before = retainedBytes(gc);

    stdin.write(
      call(
        1,
        'logsThenProgress',
        { logs: 30_000, messageBytes: 1_000, steps: 50 },
        { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'info' },
      ),
    );
    await until(() => probe.flood !== undefined, 60_000, 'the handler to finish');
    const grown = retainedBytes(gc) - before;

    // Unbounded, the 30,000 lines of ~1.1 KB each would stay in memory (~33 MB); the bound is 128 lines / 64 KiB.
    expect(grown).toBeLessThan((gc ? 8 : 16) * 1024 * 1024);
    expect(
      logger.warnings.filter((warning) => warning.startsWith('The client is not reading stdout fast enough')),
    ).toHaveLength(1);

    // The host reads again: what was kept arrives, progress is the newest value, and the response is last.
    const output = new LineCollector(stdout);
    const response = await output.response(1, 10_000);
    expect(response.result.content).toEqual([{ type: 'text', text: 'logged 30000, stepped 50' }]);
    const progress = output.messages
      .filter((message) => message.method === 'notifications/progress')
      .map((message) => message.params.progress);
    expect(progress.at(-1)).toBe(50);
    expect(progress.every((value: number, index: number) => index === 0 || value > progress[index - 1])).toBe(true);
    expect(output.messages.filter((message) => message.method === 'notifications/message').length).toBeLessThan(1_000);

    // And the server still answers the next request.
    stdin.write(call(2, 'chatty', {}));
    expect((await output.response(2)).result.content).toEqual([{ type: 'text', text: 'chatted' }]);
  }, 90_000);
});
