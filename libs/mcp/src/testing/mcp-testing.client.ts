import { mcpServerToken } from '../config/server-tokens.js';
import { requireServerChoice } from '../config/server-lookup.util.js';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../config/mcp-options.interface.js';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../protocol/json-rpc.interface.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import type {
  McpCallToolResult,
  McpCompletionResult,
  McpGetPromptResult,
  McpImplementation,
  McpPromptDefinition,
  McpReadResourceResult,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
} from '../protocol/mcp-wire.interface.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/protocol-version.constants.js';
import { TASKS_EXTENSION } from '../protocol/task.constants.js';
import { HttpTestingTransport } from './http.transport.js';
import { type McpNameFieldOf, specifiedNameField } from './mcp-name-field.js';
import { McpModernWire } from '../server/modern-wire.profile.js';
import { InProcessTestingTransport } from './in-process.transport.js';
import { InputAnswerer } from './input-answerer.js';
import { type McpListenFilter, McpListenStream } from './mcp-listen.stream.js';
import { McpEventStream } from './mcp-event.stream.js';
import type {
  McpEventCursorOptions,
  McpEventPollOptions,
  McpEventPollResult,
  McpEventTypeEntry,
  McpWebhookSubscribeOptions,
  McpWebhookSubscription,
} from './mcp-testing-events.interface.js';
import { McpPromptResult } from './mcp-prompt.result.js';
import { McpResourceReadResult } from './mcp-resource-read.result.js';
import type { McpElicitHandler, McpTestingAnswer, McpTestingInputRequest } from './mcp-testing-input.interface.js';
import type { McpProgressUpdate } from './mcp-testing-notifications.interface.js';
import type {
  McpTestingCallOptions,
  McpTestingCaller,
  McpTestingRequestOptions,
} from './mcp-testing-options.interface.js';
import type { McpCompletionReference, McpDiscoverResult } from './mcp-testing-wire.interface.js';
import type { McpDirectoryEntry, McpSkillEntry } from './mcp-testing-skills.interface.js';
import { McpTestingError } from './mcp-testing.error.js';
import { MCP_APP_MIME_TYPE } from '../apps/apps.constants.js';
import { McpAppViewResult } from './mcp-app-view.result.js';
import type { McpCallRecord } from './mcp-testing.result.js';
import { McpTestingTask, type McpTestingTaskPort, type McpTestingTaskState } from './mcp-testing.task.js';
import { McpToolCallResult } from './mcp-tool-call.result.js';
import type { McpTestingMode, TestingTransport } from './testing-transport.interface.js';

const DEFAULT_CLIENT_INFO: McpImplementation = { name: 'nest-mcp-testing', version: '1.0.0' };
const DEFAULT_MAX_ROUNDS = 10;
/** Pages followed by the list methods before giving up on a server whose cursors never end. */
const MAX_PAGES = 1_000;

/**
 * An MCP client for tests, speaking the 2026-07-28 wire to one server, with the same API in both of its modes:
 *
 * - `McpTestingClient.create(moduleRef)`: in-process. Each request runs through the application's dispatcher and the
 *   real handler pipeline (guards, interceptors, pipes, filters, validation, result shaping), without HTTP. Guards
 *   receive a plain request object `{ method, url, headers, body, user? }` that the test controls.
 * - `McpTestingClient.connect(app)` (a listening app, or a URL): over real Streamable HTTP.
 *
 * Calls collect their progress and log notifications, and answer elicitations by performing the real multi
 * round-trip retries (`inputResponses` + `requestState`) with answers from `answerWith` or `onElicit`.
 *
 * @example
 * ```ts
 * const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
 * const client = await McpTestingClient.create(moduleRef, { capabilities: { elicitation: { form: {} } } });
 * client.answerWith({ action: 'accept', content: { confirm: true } });
 * const result = await client.callTool('delete_backup', { id: 'b-1' });
 * expect(result.text()).toBe('deleted b-1');
 * ```
 */
export class McpTestingClient {
  private readonly answers = new InputAnswerer();
  private nextId = 1;

  private constructor(
    private readonly transport: TestingTransport,
    private readonly defaults: McpTestingRequestOptions,
  ) {}

  /**
   * An in-process client for a compiled `TestingModule` (or any application context). Initializes it if needed, so
   * the MCP handlers are discovered; overrides made with `overrideProvider` / `overrideGuard` are in effect.
   */
  static async create(app: INestApplicationContext, options: McpTestingRequestOptions = {}): Promise<McpTestingClient> {
    await app.init();
    return new McpTestingClient(InProcessTestingTransport.from(app, options.server), options);
  }

  /** An HTTP client for a listening application (its MCP endpoint is found by itself) or an endpoint URL. */
  static async connect(
    target: INestApplication | URL | string,
    options: McpTestingRequestOptions = {},
  ): Promise<McpTestingClient> {
    const { url, nameFieldOf } = await httpTargetOf(target, options.server);
    return new McpTestingClient(new HttpTestingTransport(url, nameFieldOf), options);
  }

  /**
   * A client that calls as `caller` (in-process only): every request carries a verified access token for it, so
   * `@McpScopes`, per-caller lists, the `visibility` hook and guards see that caller (see `McpTestingCaller`). It shares
   * this client's connection and defaults; scripted answers are its own.
   *
   * @example
   * ```ts
   * const reader = client.as({ subject: 'ana', scopes: ['deploy:read'] });
   * await expect(reader.callTool('deploy', { release: 'r1' })).rejects.toMatchObject({ httpStatus: 403 });
   * expect((await reader.listTools()).map((tool) => tool.name)).not.toContain('deploy');
   * ```
   */
  as(caller: McpTestingCaller): McpTestingClient {
    if (this.transport.mode !== 'in-process') {
      throw new TypeError(
        'McpTestingClient.as() is in-process only; over HTTP, connect with a real token: headers: { authorization: "Bearer …" }',
      );
    }
    return new McpTestingClient(this.transport, { ...this.defaults, caller });
  }

  /** How this client reaches the server. */
  get mode(): McpTestingMode {
    return this.transport.mode;
  }

  /** Answers input requests with `handler` once the scripted answers (`answerWith`) have run out. */
  onElicit(handler: McpElicitHandler): this {
    this.answers.handleWith(handler);
    return this;
  }

  /** Scripts answers, used in order, one per input request, across calls (before the `onElicit` handler). */
  answerWith(...answers: McpTestingAnswer[]): this {
    this.answers.enqueue(answers);
    return this;
  }

  /** Scripted answers not used yet: assert it is 0 to prove a handler asked as often as expected. */
  get pendingAnswers(): number {
    return this.answers.pending;
  }

  /** `server/discover`: supported versions, capabilities, instructions. */
  discover(options?: McpTestingRequestOptions): Promise<McpDiscoverResult> {
    return this.request<McpDiscoverResult>('server/discover', {}, options);
  }

  /** `tools/list`, every page. */
  listTools(options?: McpTestingRequestOptions): Promise<McpToolDefinition[]> {
    return this.listAll<McpToolDefinition>('tools/list', 'tools', options);
  }

  /** `prompts/list`, every page. */
  listPrompts(options?: McpTestingRequestOptions): Promise<McpPromptDefinition[]> {
    return this.listAll<McpPromptDefinition>('prompts/list', 'prompts', options);
  }

  /** `resources/list`, every page. */
  listResources(options?: McpTestingRequestOptions): Promise<McpResourceDefinition[]> {
    return this.listAll<McpResourceDefinition>('resources/list', 'resources', options);
  }

  /** `resources/templates/list`, every page. */
  listResourceTemplates(options?: McpTestingRequestOptions): Promise<McpResourceTemplateDefinition[]> {
    return this.listAll<McpResourceTemplateDefinition>('resources/templates/list', 'resourceTemplates', options);
  }

  /**
   * `tools/call`, with every elicitation round answered. A tool failure is a result with `isError`; a protocol
   * error (unknown tool, `McpError`, …) throws `McpTestingError`.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: McpTestingCallOptions = {},
  ): Promise<McpToolCallResult> {
    const { result, record } = await this.call('tools/call', { name, arguments: args }, options);
    return McpToolCallResult.of(result as unknown as McpCallToolResult, record);
  }

  /**
   * `tools/call` of a task tool (`@McpTool({ task })`), with the tasks extension (`io.modelcontextprotocol/tasks`)
   * declared in the request's capabilities: resolves with a handle on the task the server created, to poll, answer,
   * cancel or await. Elicitation rounds before the task exists (`beforeTask`) are answered as in `callTool`. The
   * handle's requests reuse this call's options (headers, principal, user), so they reach the same owner's task.
   * A tool that answered without a task (no `task` option) throws.
   *
   * @example
   * ```ts
   * const task = await client.startTask('incident_report', { incident: 'INC-7' });
   * expect(task.status).toBe('working');
   * const result = await task.result({ answers: [{ action: 'accept', content: { confirm: true } }] });
   * ```
   */
  async startTask(
    name: string,
    args: Record<string, unknown> = {},
    options: McpTestingCallOptions = {},
  ): Promise<McpTestingTask> {
    const taskOptions = this.withTasks(options);
    const { result } = await this.call('tools/call', { name, arguments: args }, taskOptions);
    if (result.resultType !== 'task') {
      throw new Error(
        `${name} answered without creating a task (resultType ${String(result.resultType)}): is it a task tool?`,
      );
    }
    const { resultType: _type, _meta: _unused, ...created } = result;
    const port: McpTestingTaskPort = {
      request: (method, params, settings) => this.request(method, params, settings),
      answer: (request, callAnswers) => this.answers.answer(request, callAnswers, options.onElicit),
    };
    return McpTestingTask.of(port, created as unknown as McpTestingTaskState, taskOptions);
  }

  /**
   * A handle on an existing task, by id (e.g. one created by another client, to check it survives a reconnect or is
   * refused to another principal). The first `poll()` fetches it.
   */
  async task(taskId: string, options: McpTestingRequestOptions = {}): Promise<McpTestingTask> {
    const taskOptions = this.withTasks(options);
    const port: McpTestingTaskPort = {
      request: (method, params, settings) => this.request(method, params, settings),
      answer: (request, callAnswers) => this.answers.answer(request, callAnswers),
    };
    const handle = McpTestingTask.of(port, { taskId } as McpTestingTaskState, taskOptions);
    await handle.poll();
    return handle;
  }

  /** `prompts/get`, with every elicitation round answered. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: McpTestingCallOptions = {},
  ): Promise<McpPromptResult> {
    const { result, record } = await this.call('prompts/get', { name, arguments: args }, options);
    return McpPromptResult.of(result as unknown as McpGetPromptResult, record);
  }

  /** `resources/read`, with every elicitation round answered. */
  async readResource(uri: string, options: McpTestingCallOptions = {}): Promise<McpResourceReadResult> {
    const { result, record } = await this.call('resources/read', { uri }, options);
    return McpResourceReadResult.of(result as unknown as McpReadResourceResult, record);
  }

  /**
   * `completion/complete`.
   *
   * @example `await client.complete({ type: 'ref/prompt', name: 'incident_summary' }, { name: 'service', value: 'pay' })`
   */
  async complete(
    ref: McpCompletionReference,
    argument: { name: string; value: string },
    context?: { arguments: Record<string, string> },
    options?: McpTestingRequestOptions,
  ): Promise<McpCompletionResult> {
    const params = { ref, argument, ...(context && { context }) };
    return (await this.request<{ completion: McpCompletionResult }>('completion/complete', params, options)).completion;
  }

  /** Opens a `subscriptions/listen` stream; resolves once the server acknowledged it. */
  async listen(filter: McpListenFilter, options: McpTestingRequestOptions = {}): Promise<McpListenStream> {
    const abort = new AbortController();
    let acknowledge!: () => void;
    const acknowledged = new Promise<void>((resolve) => (acknowledge = resolve));
    const settings = { ...this.settings(options), signal: abort.signal };
    // Sent on the next tick, so the stream exists before its first notification arrives.
    const done = Promise.resolve().then(() =>
      this.send('subscriptions/listen', { notifications: filter }, settings, false, (notification) => {
        stream.push(notification);
        if (notification.method === 'notifications/subscriptions/acknowledged') acknowledge();
      }),
    );
    const stream = McpListenStream.open(abort, done);
    await Promise.race([acknowledged, done]);
    return stream;
  }

  /** `events/list` (the events extension, SEP-3415), every page. */
  listEvents(options?: McpTestingRequestOptions): Promise<McpEventTypeEntry[]> {
    return this.listAll('events/list', 'events', options);
  }

  /**
   * `events/poll` of one subscription `(name, arguments)`: with no cursor (or `null`), the current position and no
   * events; with the cursor of the last poll, what happened since.
   *
   * @example
   * ```ts
   * const start = await client.pollEvents('incident.opened', { severity: 'P1' });
   * await events.emit('incident.opened', incident);
   * const next = await client.pollEvents('incident.opened', { severity: 'P1' }, { cursor: start.cursor });
   * ```
   */
  pollEvents(
    name: string,
    args: Record<string, unknown> = {},
    poll: McpEventPollOptions = {},
    options?: McpTestingRequestOptions,
  ): Promise<McpEventPollResult> {
    return this.request<McpEventPollResult>('events/poll', { name, arguments: args, ...poll }, options);
  }

  /**
   * Opens an `events/stream`; resolves once the server sent `notifications/events/active`. A refusal (unknown type,
   * bad arguments…) rejects with `McpTestingError`.
   */
  async streamEvents(
    name: string,
    args: Record<string, unknown> = {},
    from: McpEventCursorOptions = {},
    options: McpTestingRequestOptions = {},
  ): Promise<McpEventStream> {
    const abort = new AbortController();
    let activate!: () => void;
    const active = new Promise<void>((resolve) => (activate = resolve));
    const settings = { ...this.settings(options), signal: abort.signal };
    const done = Promise.resolve().then(() =>
      this.send('events/stream', { name, arguments: args, ...from }, settings, false, (notification) => {
        stream.push(notification);
        if (notification.method === 'notifications/events/active') activate();
      }),
    );
    const stream = McpEventStream.open(abort, done);
    await Promise.race([active, done]);
    return stream;
  }

  /** `events/subscribe`: a webhook subscription (or its refresh, with the same name, arguments and url). */
  subscribeEvents(
    name: string,
    args: Record<string, unknown>,
    webhook: McpWebhookSubscribeOptions,
    options?: McpTestingRequestOptions,
  ): Promise<McpWebhookSubscription> {
    const { url, secret, ...rest } = webhook;
    return this.request<McpWebhookSubscription>(
      'events/subscribe',
      { name, arguments: args, delivery: { mode: 'webhook', url, secret }, ...rest },
      options,
    );
  }

  /** `events/unsubscribe` of the webhook subscription with this name, arguments and url. */
  async unsubscribeEvents(
    name: string,
    args: Record<string, unknown>,
    url: string,
    options?: McpTestingRequestOptions,
  ): Promise<void> {
    await this.request('events/unsubscribe', { name, arguments: args, delivery: { mode: 'webhook', url } }, options);
  }

  /** `skills/list` (the skills extension, SEP-2640), every page. */
  listSkills(options?: McpTestingRequestOptions): Promise<McpSkillEntry[]> {
    return this.listAll('skills/list', 'skills', options);
  }

  /** `skills/get`: the entry of the skill whose SKILL.md has this URI (listed or not). */
  async getSkill(uri: string, options?: McpTestingRequestOptions): Promise<McpSkillEntry> {
    return (await this.request<{ skill: McpSkillEntry }>('skills/get', { uri }, options)).skill;
  }

  /** `resources/directory/read` of a skill directory (`skill://<skill-path>` or a folder inside it), every page. */
  readDirectory(uri: string, options?: McpTestingRequestOptions): Promise<McpDirectoryEntry[]> {
    return this.listAll('resources/directory/read', 'resources', options, { uri });
  }

  /**
   * The MCP Apps views the server lists (`resources/list` entries with MIME type `text/html;profile=mcp-app`), every
   * page.
   */
  async listViews(options?: McpTestingRequestOptions): Promise<McpResourceDefinition[]> {
    return (await this.listResources(options)).filter((resource) => resource.mimeType === MCP_APP_MIME_TYPE);
  }

  /**
   * `resources/read` of an MCP Apps view, as a host reads it before rendering: throws unless the result is exactly one
   * content item for `uri` with the MCP Apps MIME type. `html` is the document, `ui` its `_meta.ui`.
   *
   * @example
   * ```ts
   * const view = await client.readView('ui://deploy/board');
   * expect(view.html).toContain('<!DOCTYPE html>');
   * expect(view.ui).toEqual({ prefersBorder: true });
   * ```
   */
  async readView(uri: string, options: McpTestingCallOptions = {}): Promise<McpAppViewResult> {
    const { result, record } = await this.call('resources/read', { uri }, options);
    return McpAppViewResult.of(result as unknown as McpReadResourceResult, record, uri);
  }

  /** Sends any request once (no elicitation rounds) and resolves with its result; an error throws `McpTestingError`. */
  request<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    options: McpTestingRequestOptions = {},
  ): Promise<T> {
    return this.send(method, params, this.settings(options), false, () => undefined) as Promise<T>;
  }

  private async listAll<T>(
    method: string,
    field: string,
    options?: McpTestingRequestOptions,
    params: Record<string, unknown> = {},
  ): Promise<T[]> {
    const items: T[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request(method, cursor === undefined ? params : { ...params, cursor }, options);
      items.push(...((result[field] as T[] | undefined) ?? []));
      cursor = result.nextCursor;
      if (cursor === undefined) return items;
    }
    throw new Error(`${method} still had a next page after ${MAX_PAGES} pages`);
  }

  /** One call through every round: answers each `input_required` result and retries with the answers and state. */
  private async call(
    method: string,
    params: JsonObject,
    options: McpTestingCallOptions,
  ): Promise<{ result: JsonObject; record: McpCallRecord }> {
    const settings = this.settings(options);
    const maxRounds = settings.maxRounds ?? DEFAULT_MAX_ROUNDS;
    const callAnswers = [...(options.answers ?? [])];
    const record: McpCallRecord = { notifications: [], inputRequests: [], rounds: 0 };
    const onNotification = (notification: JsonRpcNotification) => {
      record.notifications.push(notification);
      if (notification.method === 'notifications/progress' && options.onProgress) {
        const { progressToken: _token, ...update } = notification.params ?? {};
        options.onProgress(update as unknown as McpProgressUpdate);
      }
    };
    let retry: JsonObject = {};
    for (;;) {
      record.rounds++;
      const result = await this.send(
        method,
        { ...params, ...retry },
        settings,
        settings.progress !== false,
        onNotification,
      );
      if (result.resultType !== 'input_required') return { result, record };
      if (record.rounds >= maxRounds) {
        throw new Error(
          `${method} still asked for input after ${maxRounds} rounds (raise maxRounds if that is expected)`,
        );
      }
      const inputResponses: JsonObject = {};
      const asked = (result.inputRequests ?? {}) as Record<string, Pick<McpTestingInputRequest, 'method' | 'params'>>;
      for (const [key, embedded] of Object.entries(asked)) {
        const request: McpTestingInputRequest = {
          key,
          method: embedded.method,
          params: embedded.params ?? {},
          round: record.rounds,
        };
        record.inputRequests.push(request);
        inputResponses[key] = await this.answers.answer(request, callAnswers, options.onElicit);
      }
      retry = { inputResponses, ...(result.requestState !== undefined && { requestState: result.requestState }) };
    }
  }

  private async send(
    method: string,
    params: JsonObject,
    settings: McpTestingCallOptions,
    progress: boolean,
    onNotification: (notification: JsonRpcNotification) => void,
  ): Promise<JsonObject> {
    const id = this.nextId++;
    const meta: JsonObject = {
      ...settings.meta,
      [MetaKeys.protocolVersion]: LATEST_PROTOCOL_VERSION,
      [MetaKeys.clientCapabilities]: settings.capabilities ?? {},
      [MetaKeys.clientInfo]: settings.clientInfo ?? DEFAULT_CLIENT_INFO,
      ...(settings.logLevel !== undefined && { [MetaKeys.logLevel]: settings.logLevel }),
      ...(progress && { [MetaKeys.progressToken]: `progress-${id}` }),
    };
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
    const { response, httpStatus, wwwAuthenticate } = await this.transport.send({
      message,
      options: settings,
      onNotification,
    });
    if ('error' in response) {
      throw new McpTestingError(
        response.error.code,
        response.error.message,
        response.error.data,
        httpStatus,
        method,
        wwwAuthenticate,
      );
    }
    return response.result;
  }

  /** `options` with the tasks extension added to the capabilities the client would declare. */
  private withTasks(options: McpTestingCallOptions): McpTestingCallOptions {
    const capabilities = options.capabilities ?? this.defaults.capabilities ?? {};
    return {
      ...options,
      capabilities: { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } },
    };
  }

  /** The client's defaults overridden by a call's options; headers are merged. */
  private settings(options: McpTestingCallOptions = {}): McpTestingCallOptions {
    return { ...this.defaults, ...options, headers: { ...this.defaults.headers, ...options.headers } };
  }
}

/** The MCP endpoint of a listening application, or the given URL. */
async function httpTargetOf(
  target: INestApplication | URL | string,
  server?: string,
): Promise<{ url: URL; nameFieldOf: McpNameFieldOf }> {
  if (typeof target === 'string' || target instanceof URL)
    return { url: new URL(target), nameFieldOf: specifiedNameField };
  if (!(target.getHttpServer() as { listening?: boolean } | undefined)?.listening) {
    throw new Error(
      'McpTestingClient.connect needs a listening application (await app.listen(0, "127.0.0.1")); ' +
        'use McpTestingClient.create(app) for in-process calls',
    );
  }
  requireServerChoice(target, server, 'McpTestingClient.connect');
  let path = '/mcp';
  let nameFieldOf = specifiedNameField;
  try {
    const token = server === undefined ? MCP_MODULE_OPTIONS_EXTRAS : mcpServerToken(server, 'extras');
    path = target.get<symbol | string, McpModuleExtras>(token, { strict: false }).path ?? path;
    const wire = target.get<unknown, McpModernWire>(
      server === undefined ? McpModernWire : mcpServerToken(server, 'wire'),
      {
        strict: false,
      },
    );
    // The field Mcp-Name mirrors is the route's own, as the server checks it (core methods and every extension's).
    nameFieldOf = (method) => wire.declaredRoute(method)?.nameParam;
  } catch {
    // No McpModule in this application: the request will say so (404).
  }
  return { url: new URL(path, await target.getUrl()), nameFieldOf };
}
