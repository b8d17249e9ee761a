import { Client, type ElicitResult, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CliTarget } from './cli-arguments.parser.js';
import { CLI_PROTOCOL_VERSION, CLI_VERSION } from './cli.constants.js';
import type { ElicitationParams, ElicitationResponder } from './elicitation-responder.interface.js';
import type { ClientProgress } from './progress.relay.js';
import { TaskChannel, TASKS_EXTENSION } from './task.channel.js';

/** A connected official client and how to let go of it. */
export interface ConnectedTarget {
  client: Client;
  /** The task requests the client cannot make itself (see `TaskChannel`). */
  tasks: TaskChannel;
  close(): Promise<void>;
}

/** How to connect. */
export interface ConnectOptions {
  responder: ElicitationResponder;
  /** Where a stdio server's stderr goes; `undefined` discards it (it is still read, so the server never blocks). */
  serverStderr?: { write(chunk: Buffer | string): unknown };
  /** Every `notifications/progress` the server sends, as it arrives (see `tapProgress`). */
  onProgress?: (progress: ClientProgress) => void;
  /**
   * The whole environment of a stdio server (see `buildServerEnvironment`); nothing else of the CLI's reaches it.
   * The official transport adds its own `DEFAULT_INHERITED_ENV_VARS`, which the minimal environment includes anyway.
   */
  serverEnvironment?: Record<string, string>;
}

/**
 * The official stdio transport, probing the protocol version in place. The SDK runs the `server/discover` probe
 * on a throwaway sibling process only for its own base class (some older servers exit on any request before
 * `initialize`); a server that can be pinned to 2026-07-28 answers the probe, so one process does for both, and
 * the server starts once instead of twice.
 */
class InPlaceStdioClientTransport extends StdioClientTransport {}

/**
 * Connects the official client (`@modelcontextprotocol/client`), pinned to 2026-07-28, with form and URL
 * elicitation and the tasks extension declared. MRTR is automatic: an `input_required` result is answered by
 * `responder` and the request retried by the client.
 */
export async function connectTarget(target: CliTarget, options: ConnectOptions): Promise<ConnectedTarget> {
  const clientInfo = { name: 'nest-mcp-cli', version: CLI_VERSION };
  const clientCapabilities = { elicitation: { form: {}, url: {} }, extensions: { [TASKS_EXTENSION]: {} } };
  const client = new Client(clientInfo, {
    capabilities: clientCapabilities,
    versionNegotiation: { mode: { pin: CLI_PROTOCOL_VERSION } },
  });
  // For an input request embedded in an MRTR result, the context's request id is the server's input request key.
  client.setRequestHandler(
    'elicitation/create',
    async (request, context) =>
      (await options.responder.answer(
        String(context.mcpReq.id),
        request.params as unknown as ElicitationParams,
      )) as ElicitResult,
  );
  let transport: Transport;
  if (target.kind === 'http') {
    transport = new StreamableHTTPClientTransport(target.url);
  } else {
    const stdio = new InPlaceStdioClientTransport({
      command: target.command,
      args: target.args,
      env: options.serverEnvironment ?? {},
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => options.serverStderr?.write(chunk));
    transport = stdio;
  }
  await client.connect(transport);
  if (options.onProgress) tapProgress(transport, options.onProgress);
  return { client, tasks: new TaskChannel(transport, { clientInfo, clientCapabilities }), close: () => client.close() };
}

/**
 * Reads progress notifications off the transport, before the client dispatches them. The client (2.4.0) hands
 * notifications to their handlers a microtask later but responses at once, so a progress notification that
 * arrives in the same read as the final response finds its handler already retired and is dropped
 * (modelcontextprotocol/typescript-sdk#2580) — the bar would miss its last step. The CLI runs one request at a
 * time, so every progress notification belongs to it; the request still passes `onprogress` to get a token.
 */
function tapProgress(transport: Transport, listener: (progress: ClientProgress) => void): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
      const { progress, total, message: text } = (message.params ?? {}) as Record<string, unknown>;
      if (typeof progress === 'number')
        listener({
          progress,
          total: typeof total === 'number' ? total : undefined,
          message: typeof text === 'string' ? text : undefined,
        });
    }
    deliver?.call(transport, message, extra);
  };
}
