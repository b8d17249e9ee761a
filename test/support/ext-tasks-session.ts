import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import { extTasksRawDispatch } from './ext-tasks-dispatch.js';

const PROTOCOL = '2026-07-28';
const clientCapabilities = { elicitation: { form: {} } };

/** Where an ext-tasks session sends its requests, as whom, and what it answers to a form. */
export interface ExtTasksSessionOptions {
  /** The endpoint of its `tools/call`. */
  readonly callUrl: URL;
  /** The endpoint of its `tasks/get`, `tasks/update`, `tasks/cancel` (another replica's, say). Default: `callUrl`. */
  readonly tasksUrl?: URL;
  /** Headers of every request (`x-user`, `authorization`…). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The content of the answer to every form (accepted). Default `{ confirm: true }`. */
  readonly answer?: Record<string, unknown>;
  /** The client's name. */
  readonly clientName?: string;
}

/**
 * The official client on the 2026-07-28 wire with an official ext-tasks session: `session.callTool(…, { task })` then
 * `settle()` polls `tasks/get` and answers input requests with `tasks/update`. `asked` records the forms' messages.
 */
export async function openExtTasksSession(options: ExtTasksSessionOptions) {
  const clientInfo = { name: options.clientName ?? 'nest-mcp-ext-tasks-e2e', version: '1.0.0' };
  const headers = options.headers ?? {};
  const client = new Client(clientInfo, {
    capabilities: clientCapabilities,
    versionNegotiation: { mode: { pin: PROTOCOL } },
  });
  const callerFetch: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } });
  await client.connect(new StreamableHTTPClientTransport(options.callUrl, { fetch: callerFetch }));
  const tasksUrl = options.tasksUrl ?? options.callUrl;
  const framing: V2RequestFraming = { protocolVersion: PROTOCOL, clientInfo, clientCapabilities };
  const asked: string[] = [];
  const session = createTaskSessionFromClient(client, {
    endpointId: await createTaskSessionEndpointId(clientInfo.name, { url: tasksUrl.href }),
    rawDispatch: extTasksRawDispatch(tasksUrl, headers),
    v2RequestFraming: framing,
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request) => {
        asked.push(String(request.params.message ?? ''));
        return { action: 'accept', content: (options.answer ?? { confirm: true }) as never };
      },
      sampling: async () => {
        throw new Error('no sampling in these tests');
      },
      roots: async () => ({ roots: [] }),
    }),
  });
  return { session, asked, close: async () => (await session.close(), await client.close()) };
}
