import type { ModuleMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpStdio, type McpStdioServer } from 'nest-mcp';
import { PassThrough } from 'node:stream';

/** A JSON-RPC message as read back from the server's output. */
export type WireMessage = Record<string, any>;

/** The `_meta` envelope of a 2026-07-28 request, with optional extra keys (progress token, traceparent…). */
export function modernMeta(
  extra: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    ...extra,
  };
}

/**
 * Reads NDJSON from a stream: every raw line is kept (to check that each one is intact JSON), parsed messages are
 * queued, and tests wait for the message they expect.
 */
export class LineCollector {
  readonly lines: string[] = [];
  readonly messages: WireMessage[] = [];
  private buffered = '';
  private waiters: { predicate: (message: WireMessage) => boolean; resolve: (message: WireMessage) => void }[] = [];
  private ended = false;
  private readonly endWaiters: (() => void)[] = [];

  constructor(stream: NodeJS.ReadableStream) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.push(chunk));
    stream.on('end', () => {
      this.ended = true;
      for (const resolve of this.endWaiters.splice(0)) resolve();
    });
  }

  private push(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      this.lines.push(line);
      let message: WireMessage;
      try {
        message = JSON.parse(line);
      } catch {
        continue; // kept in `lines`; the test decides whether that is a failure
      }
      this.messages.push(message);
      for (const waiter of [...this.waiters]) {
        if (waiter.predicate(message)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  }

  /** Bytes after the last newline (must be empty when the stream ended cleanly). */
  get partial(): string {
    return this.buffered;
  }

  /** The first message (already received or still to come) that matches. */
  waitFor(predicate: (message: WireMessage) => boolean, timeoutMs = 10_000): Promise<WireMessage> {
    const seen = this.messages.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for a message; got ${JSON.stringify(this.messages.slice(-5))}`)),
        timeoutMs,
      );
      this.waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  }

  /** The response to request `id`. */
  response(id: string | number, timeoutMs?: number): Promise<WireMessage> {
    return this.waitFor((message) => message.id === id && ('result' in message || 'error' in message), timeoutMs);
  }

  /** Resolves when the stream ended. */
  end(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }
}

/** A stdio server running in this process on PassThrough streams. */
export interface InProcessStdio {
  moduleRef: TestingModule;
  server: McpStdioServer;
  output: LineCollector;
  /** Writes one message (an object is serialised; a string is sent as is, newline added). */
  send(message: object | string): void;
  /** Writes bytes exactly as given. */
  sendRaw(text: string): void;
  /** Ends stdin, as a client does when it is done. */
  endInput(): void;
  /** Stops the server and closes the module. */
  close(): Promise<void>;
}

/** Compiles a testing module and serves it over stdio on PassThrough streams. */
export async function startInProcessStdio(metadata: ModuleMetadata): Promise<InProcessStdio> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  moduleRef.useLogger(false);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const output = new LineCollector(stdout);
  const server = await McpStdio.attach(moduleRef, { stdin, stdout });
  return {
    moduleRef,
    server,
    output,
    send: (message) => stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    sendRaw: (text) => stdin.write(text),
    endInput: () => stdin.end(),
    close: async () => {
      await server.close();
      await moduleRef.close();
    },
  };
}
