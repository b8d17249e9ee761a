import { Logger, type LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonRpcNotification, JsonValue } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { parseTraceparent, TRACEPARENT_META_KEY, type TraceIds } from '../protocol/traceparent.parser.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import {
  MCP_LOG_LEVELS,
  type McpClientCapabilities,
  type McpImplementation,
  type McpLogLevel,
} from '../protocol/mcp-wire.interface.js';
import { AnswerLedger } from '../mrtr/answer-ledger.js';
import type { McpElicitOptions } from '../mrtr/elicit-options.interface.js';
import { checkHandlerState } from '../mrtr/handler-state.util.js';
import { supportsInputKind, type McpInputKind } from '../mrtr/input-kind.js';
import { taskRoundState } from '../mrtr/task-round-state.js';
import { canElicit } from '../mrtr/input-request.builders.js';
import type { McpInputRequest } from '../mrtr/input-request.interface.js';
import { InputRequiredSignal } from '../mrtr/input-required.signal.js';
import type { McpAnswers, McpElicitor } from '../mrtr/mcp-elicitor.interface.js';
import type { McpProgressSource } from '../progress/mcp-progress-source.interface.js';
import type { ProgressEvent } from '../progress/progress-event.interface.js';
import { formatProgressEvent } from '../progress/progress-event.codec.js';
import { readProgressLines } from '../progress/progress-event.reader.js';
import type { ProgressSink } from '../progress/progress-sink.interface.js';
import { CountingProgress, DoubleProgress, LongProgress, PercentProgress } from '../progress/progress.emitters.js';
import { RequestProgressSink } from '../progress/request-progress.sink.js';
import { callerKeyOf } from '../protocol/call-origin.util.js';
import { McpLocalResponse } from './local-response.js';

const MAX_LIVE_ATTEMPTS = 3;
/** A number as JSON writes it (`JSON.stringify` turns non-finite values into null). */
const jsonNumber = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');
const LOG_RANK: ReadonlyMap<string, number> = new Map(MCP_LOG_LEVELS.map((level, rank) => [level, rank]));

/**
 * What every handler of `tools/call`, `prompts/get` and `resources/read` can use while it runs: progress emitters,
 * elicitation (Multi Round-Trip Requests), cancellation, per-request logging, and the identity of the call.
 *
 * Elicitation replays the handler: each round runs it again from the top with the answers gathered so far, so the
 * code before the last `elicit` must be idempotent.
 */
export class MrtrContext implements McpElicitor, McpProgressSource {
  // Set once, by `open`: the constructor takes nothing, so the published declarations name no internal type.
  /** @internal */
  protected scope: McpRequestScope;
  private name: string;
  private ledger: AnswerLedger;
  private completed = false;
  private askedLive = false;
  private standInRequest?: object;
  private standInResponse?: McpLocalResponse;
  /** The serialized progress notification up to its `progress` value (the token is fixed for a call). */
  private progressPrefix?: string;
  private readonly sink: ProgressSink;

  /** Contexts are made by nest-mcp for each call; a handler receives its own through `@McpCtx()`. */
  protected constructor() {
    // One sink for every emitter and progressFrom of the call: the values of one progress token must increase.
    this.sink = new RequestProgressSink({
      send: (progress, total, message) => this.sendProgress(progress, total, message),
    });
  }

  /**
   * @internal The only way contexts are made: the context of one call of `name` (tool, prompt, resource URI or
   * template), with the answers the call has so far.
   *
   * @example McpToolContext.open(scope, 'deploy', ledger)
   */
  static open<C extends MrtrContext>(
    this: typeof MrtrContext & { prototype: C },
    scope: McpRequestScope,
    name: string,
    ledger: AnswerLedger = new AnswerLedger(new Map()),
  ): C {
    // `this` is the context class `open` was called on, so the instance is a C.
    const context = new this() as C;
    context.scope = scope;
    context.name = name;
    context.ledger = ledger;
    return context;
  }

  /**
   * @internal Arguments 0 and 1 of the Nest pipeline that runs the handler: the HTTP request and response the call came
   * with (Express or Fastify objects). Off HTTP, stand-ins made for this call, so that enhancers written for HTTP
   * (`@nestjs/throttler`'s guard reads `request.ip` and sets response headers) run instead of crashing: the request of
   * the origin, else one with empty `headers`; an `McpLocalResponse` that keeps the headers set on it.
   */
  get httpRequest(): unknown {
    return this.scope.httpRequest ?? (this.standInRequest ??= { headers: {} });
  }

  /** @internal See `httpRequest`. */
  get httpResponse(): unknown {
    return this.scope.httpResponse ?? (this.standInResponse ??= new McpLocalResponse());
  }

  /**
   * @internal Who the call is counted and cached for: `p:<principal>`, else `a:<address>` over HTTP, else the origin
   * (`stdio`, `in-process`, `task`). See `callerKeyOf`.
   */
  get callerKey(): string {
    return callerKeyOf(this.scope);
  }

  /** @internal The JSON-RPC method being served (`tools/call`, `prompts/get`, `resources/read`). */
  get method(): string {
    return this.scope.method;
  }

  /**
   * @internal Whether what the handler returns may depend on input the client gave during the call (answers of an
   * earlier round, or a live request on the 2025-11-25 wire), rather than on its arguments alone.
   */
  get usedInput(): boolean {
    return this.askedLive || this.ledger.hasAnswers;
  }

  /** The name of the tool or prompt, or the URI (template) of the resource being served. */
  handlerName(): string {
    return this.name;
  }

  /** Aborts when the client disconnects or the server shuts down; pass it on to I/O you start. */
  get signal(): AbortSignal {
    return this.scope.cancellation.signal;
  }

  /** The JSON-RPC id of this request. */
  get requestId(): string | number {
    return this.scope.id;
  }

  /** The protocol version this request was sent with. */
  get protocolVersion(): string {
    return this.scope.meta.protocolVersion;
  }

  /** What the client declared it can do, for this request only. */
  get clientCapabilities(): McpClientCapabilities {
    return this.scope.meta.clientCapabilities;
  }

  /** The client's self-description; display only, never a basis for security decisions. */
  get clientInfo(): McpImplementation | undefined {
    return this.scope.meta.clientInfo;
  }

  /**
   * @internal The trace ids the call is known by: its own span's when telemetry records one, else those of the
   * request's `_meta.traceparent` (undefined when neither).
   */
  traceIds(): TraceIds | undefined {
    return this.scope.trace ?? parseTraceparent(this.scope.meta.raw[TRACEPARENT_META_KEY]);
  }

  /** The whole `_meta` object of the request (trace context, extension keys…). */
  get requestMeta(): Readonly<Record<string, unknown>> {
    return this.scope.meta.raw;
  }

  /**
   * The authenticated caller: with `auth`, the principal of the verified token (its subject by default); otherwise
   * what the `principal` option returned. Undefined when anonymous. Also `@McpPrincipal()`.
   */
  get principal(): string | undefined {
    return this.scope.principal;
  }

  /**
   * The verified access token's content (subject, scopes, client id, claims; never the raw bearer string), when the
   * call carried one: HTTP with `auth`, or the testing kit's `caller`. Undefined on stdio, without `auth`, and in the
   * rounds of a task (they run after the creating request, whose token was checked then). Also `@McpToken()`.
   */
  get accessToken(): McpAccessToken | undefined {
    return this.scope.accessToken;
  }

  /**
   * The id of the task this handler runs in (`@McpTool({ task })`): its progress and logs become the task's status
   * message, and `elicit` moves the task to `input_required`. Undefined outside a task.
   */
  get taskId(): string | undefined {
    return this.scope.task?.taskId;
  }

  /**
   * Sets the status message of the task this handler runs in (`statusMessage` in `tasks/get`, the listen stream's
   * task updates and the 2025-11-25 `tasks/get`), without reporting progress: for a step that has no number ("Waiting
   * for the build agent"). Progress and log lines set it too; the latest of them wins. At most 500 characters are kept;
   * people and models read it, so no secrets. Returns whether it was written: `false` outside a task (the call goes
   * on unchanged, so one handler serves both), and once the round is over or cancelled.
   *
   * @example
   * ```ts
   * ctx.status('Waiting for a build agent');
   * ```
   */
  status(message: string): boolean {
    if (typeof message !== 'string') throw new TypeError('status: message must be a string');
    const round = taskRoundState(this.scope.task);
    if (!round || this.completed || this.scope.cancellation.aborted) return false;
    round.setStatusMessage(message);
    return true;
  }

  /** @internal A round of a task whose guards ran when it was created: the pipeline runs without them. */
  get taskAuthorized(): boolean {
    return this.scope.task?.authorized === true;
  }

  /**
   * Your own state, carried between the rounds of this call inside the sealed `requestState` (encrypted and
   * integrity-protected like the answers; a client that alters it gets `-32602`). Reading gives what an earlier round
   * attached (undefined in the first round); assigning attaches a value to the round this run ends with, if it asks
   * for input (`elicit(key, request, { state })` does the same for one question). It stays until replaced, and
   * `undefined` clears it.
   *
   * Plain JSON of at most 16 KiB (`TypeError` / `RangeError` otherwise, in every round). Keep **references** in it — a
   * reservation id, a cursor, a step — never secrets or personal data (the client carries it), and never the proof
   * that a one-time action happened: a client may send an old state again until it expires, unless
   * `requestState.singleUse` is on. On the 2025-11-25 wire a handler is not replayed (its variables survive), and in
   * a task's rounds the state is not carried: keep it in your own store under `ctx.taskId` there.
   *
   * @example
   * ```ts
   * const saved = ctx.requestState as { reservationId: string } | undefined;
   * const reservationId = saved?.reservationId ?? (await this.rooms.hold(room)); // held once, in the first round
   * const answer = await ctx.elicit('confirm', McpInput.form(`Book ${room}?`, ConfirmForm), { state: { reservationId } });
   * ```
   */
  get requestState(): unknown {
    return this.ledger.state;
  }

  set requestState(state: unknown) {
    this.ledger.state = checkHandlerState(state);
  }

  /** Whether the client asked for progress on this request (sent a progress token). */
  get wantsProgress(): boolean {
    return this.scope.meta.progressToken !== undefined;
  }

  doubleProgress(total?: number | null): DoubleProgress {
    return new DoubleProgress(this.sink, total);
  }

  longProgress(total?: number | null): LongProgress {
    return new LongProgress(this.sink, total);
  }

  countingProgress(total?: number | null): CountingProgress {
    return new CountingProgress(this.sink, total);
  }

  percentProgress(): PercentProgress {
    return new PercentProgress(this.sink);
  }

  /**
   * Relays the progress of a command this handler runs: reads `readable` (typically a child process's stderr) line by
   * line, turns every NDJSON `ProgressEvent` line into a progress report of this request, and passes every other line
   * to the Nest logger (context: the handler name). Resolves when the stream ends or `ctx.signal` aborts.
   *
   * Reports follow the `doubleProgress` rules (finite, strictly increasing, also across the other emitters of this
   * request): a line that breaks them, or a malformed progress line, is skipped with a warning instead of failing
   * the call. The total is `options.total`, or else the first event's `total`.
   *
   * Without a progress token nothing is sent to the client, and the call behaves the same. Each progress line it
   * accepts is then written unchanged to the server's stderr, where the command would have shown it, unless
   * `options.withoutToken` (default: the module option `progressFromWithoutToken`) is `'drop'`; with the module
   * option `progress: 'stderr'` the events are written as the server's own `ProgressEvent`s instead.
   *
   * @example
   * ```ts
   * const child = spawn('reindex', ['--progress=ndjson'], { signal: ctx.signal, stdio: ['ignore', 'pipe', 'pipe'] });
   * const [output] = await Promise.all([text(child.stdout), ctx.progressFrom(child.stderr), once(child, 'close')]);
   * ```
   */
  progressFrom(
    readable: NodeJS.ReadableStream,
    options: { total?: number; logger?: LoggerService; withoutToken?: 'stderr' | 'drop' } = {},
  ): Promise<void> {
    const logger = options.logger ?? new Logger(this.name);
    const withoutToken = options.withoutToken ?? this.scope.settings.progressFromWithoutToken;
    if (withoutToken !== 'stderr' && withoutToken !== 'drop')
      throw new TypeError(`progressFrom: withoutToken must be 'stderr' or 'drop'`);
    // Decided once: a request's token never changes, and `progress: 'stderr'` already writes these events itself.
    const echo = withoutToken === 'stderr' && !this.wantsProgress && !this.scope.progressFallback;
    let emitter: DoubleProgress | undefined;
    const report = (event: ProgressEvent, line: string) => {
      emitter ??= this.doubleProgress(options.total ?? event.total);
      emitter.emit(event.progress, event.message);
      // Only lines the request's order accepted, while the call is live; one write of one whole line.
      if (echo && !this.completed && !this.scope.cancellation.aborted) process.stderr.write(this.echoed(event, line));
    };
    return readProgressLines(
      readable,
      {
        onEvent: report,
        onRejected: (line, reason) => logger.warn(`Skipped a progress line (${reason}): ${line}`),
        onOther: (line) => logger.log(line),
      },
      this.scope.cancellation.signal,
    );
  }

  /**
   * A wrapped command's line as this server echoes it: with the call's span ids when telemetry records one (the
   * command knows nothing of the call, so concurrent calls' lines are told apart by these), else as it was.
   */
  private echoed(event: ProgressEvent, line: string): string {
    const trace = this.scope.trace;
    return trace ? formatProgressEvent({ ...event, traceId: trace.traceId, spanId: trace.spanId }) : `${line}\n`;
  }

  async elicit<A>(key: string, request: McpInputRequest<A>, options?: McpElicitOptions): Promise<A> {
    // Checked in every round, whether or not this one asks: a bad state is a bug that must show in the first test.
    const state = options && 'state' in options ? { value: checkHandlerState(options.state) } : undefined;
    if (this.scope.liveRequests) return this.askLive(request);
    const answer = this.lookup(key, request);
    if (answer.ok) return answer.answer;
    this.ledger.ask(key, request as McpInputRequest<unknown>);
    if (state) this.ledger.state = state.value;
    throw new InputRequiredSignal([key]);
  }

  async elicitAll<R extends Record<string, McpInputRequest<unknown>>>(
    requests: R,
    options?: McpElicitOptions,
  ): Promise<McpAnswers<R>> {
    const state = options && 'state' in options ? { value: checkHandlerState(options.state) } : undefined;
    if (this.scope.liveRequests) {
      const entries = await Promise.all(
        Object.entries(requests).map(async ([key, request]) => [key, await this.askLive(request)]),
      );
      return Object.fromEntries(entries) as McpAnswers<R>;
    }
    const answers: Record<string, unknown> = {};
    const missing: string[] = [];
    for (const [key, request] of Object.entries(requests)) {
      const answer = this.lookup(key, request);
      if (answer.ok) answers[key] = answer.answer;
      else missing.push(key);
    }
    if (missing.length === 0) return answers as McpAnswers<R>;
    for (const key of missing) this.ledger.ask(key, requests[key]);
    if (state) this.ledger.state = state.value;
    throw new InputRequiredSignal(missing);
  }

  canElicit(mode: 'form' | 'url'): boolean {
    return canElicit(this.clientCapabilities, mode);
  }

  /**
   * Whether the client declared what `request` needs — or, given a kind, what input of that kind needs (`'form'`,
   * `'url'`, `'sampling'`, `'roots'`) — so the handler can choose a fallback before `elicit` fails with `-32021`.
   * Per request on the 2026-07-28 wire (`_meta` client capabilities), per session on 2025-11-25 (`initialize`). A
   * request is the finer test: `McpInput.sampling({ …, tools })` also needs `sampling.tools`.
   *
   * @example
   * ```ts
   * if (!ctx.supports('sampling')) return cannedSummary(logs);
   * const draft = await ctx.elicit('summary', McpInput.sampling({ messages, maxTokens: 200 }));
   * ```
   */
  supports(request: McpInputRequest<unknown> | McpInputKind): boolean {
    if (typeof request === 'string') return supportsInputKind(this.clientCapabilities, request);
    if (typeof request?.isAllowed !== 'function')
      throw new TypeError('supports() takes an McpInput request or one of form, url, sampling, roots');
    return request.isAllowed(this.clientCapabilities);
  }

  /**
   * Sends `notifications/message` on this request's stream, only when the request asked for a log level (its
   * `_meta`, or `logging/setLevel` on a 2025-11-25 session) and `level` is at or above it; otherwise does nothing.
   * With one argument, `data` is logged at the default level (`'info'`, or the module option `logging.defaultLevel`).
   * With `logging: false` nothing is ever sent. Returns whether the message was handed to the response. Never put
   * secrets or personal data in `data`: it goes to the client, and often to the model.
   *
   * @example
   * ```ts
   * ctx.log('Indexed 120 files'); // at the default level
   * ctx.log('warning', { skipped: 3 }, 'indexer');
   * ```
   */
  log(data: unknown): boolean;
  log(level: McpLogLevel, data: unknown, logger?: string): boolean;
  log(...args: [data: unknown] | [level: McpLogLevel, data: unknown, logger?: string]): boolean {
    const settings = this.scope.settings;
    const [level, data, logger] = args.length === 1 ? [settings.defaultLogLevel, args[0], undefined] : args;
    const rank = LOG_RANK.get(level);
    if (rank === undefined)
      throw new TypeError(`Unknown log level "${level}"; expected one of ${MCP_LOG_LEVELS.join(', ')}`);
    if (!settings.logging) return false;
    const threshold = this.scope.meta.logLevel;
    if (threshold === undefined || rank < LOG_RANK.get(threshold)!) return false;
    const params: JsonObject =
      logger === undefined ? { level, data: data as JsonValue } : { level, logger, data: data as JsonValue };
    // The call's span as W3C context (SEP-414 `_meta` keys): a log line names the call it came from.
    const traceContext = this.scope.traceContext;
    if (traceContext) params._meta = { ...traceContext };
    return this.notify({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  /** @internal The handler finished: nothing more may be sent for it. */
  complete(): void {
    this.completed = true;
  }

  private lookup<A>(key: string, request: McpInputRequest<A>): { ok: true; answer: A } | { ok: false } {
    if (typeof key !== 'string' || key.length === 0)
      throw new TypeError('an input request key must be a non-empty string');
    this.assertAllowed(request);
    if (!this.ledger.has(key)) return { ok: false };
    const parsed = request.parse(this.ledger.answerFor(key));
    if (parsed.ok) return parsed;
    if (parsed.malformed)
      throw McpError.invalidParams(`Invalid params: inputResponses["${key}"] is not a valid ${request.method} result`);
    // Content that breaks the requested schema is asked for again (spec 2026-07-28: basic/patterns/mrtr,
    // "Error Handling").
    this.ledger.forget(key);
    return { ok: false };
  }

  /**
   * The 2025-11-25 path: a real server→client request on this call's stream, answered in-process. Content that
   * breaks the form is asked again, a few times at most.
   */
  private async askLive<A>(request: McpInputRequest<A>): Promise<A> {
    this.assertAllowed(request);
    this.askedLive = true;
    let params = request.params;
    if (request.method === 'elicitation/create' && params?.mode === 'url') {
      // The legacy wire identifies URL elicitations.
      params = { ...params, elicitationId: randomUUID() };
    }
    for (let attempt = 0; attempt < MAX_LIVE_ATTEMPTS; attempt++) {
      const parsed = request.parse(await this.scope.liveRequests!.request(request.method, params));
      if (parsed.ok) return parsed.answer;
      if (parsed.malformed) throw McpError.invalidParams(`The client's answer to ${request.method} is malformed`);
    }
    throw McpError.invalidParams(`The client's answer to ${request.method} does not match the requested schema`);
  }

  private assertAllowed(request: McpInputRequest<unknown>): void {
    if (!request.isAllowed(this.clientCapabilities)) {
      throw McpError.missingCapability(
        `The client did not declare the capability needed for ${request.method} on this request`,
        request.requiredCapabilities,
      );
    }
  }

  private sendProgress(progress: number, total: number | undefined, message: string | undefined): boolean {
    const progressToken = this.scope.meta.progressToken;
    if (progressToken === undefined) {
      if (!this.completed && !this.scope.cancellation.aborted) this.scope.progressFallback?.(progress, total, message);
      return false;
    }
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    // Serialized from a prefix built once per call: a streaming handler sends thousands of these, and
    // JSON.stringify was half of the CPU per notification (docs/performance.md).
    this.progressPrefix ??= `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${JSON.stringify(progressToken)},"progress":`;
    let json = this.progressPrefix + jsonNumber(progress);
    if (total !== undefined) json += `,"total":${jsonNumber(total)}`;
    if (message !== undefined) json += `,"message":${JSON.stringify(message)}`;
    return this.notify({ jsonrpc: '2.0', method: 'notifications/progress', params }, `${json}}}`);
  }

  /** `json`, when given, is the notification already serialized. */
  private notify(notification: JsonRpcNotification, json?: string): boolean {
    if (this.completed || this.scope.cancellation.aborted) return false;
    return this.scope.channel.notify(notification, json);
  }
}
