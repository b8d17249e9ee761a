import type { McpAccessToken } from './access-token.interface.js';
import type { TraceIds } from './traceparent.parser.js';

/**
 * One run of a handler's pipeline (guards, interceptors, pipes, the method), as the `aroundHandler` option sees it:
 * made for each run, on every transport and in every round of a task.
 */
export interface McpHandlerCall {
  /** `tools/call`, `prompts/get` or `resources/read`. */
  readonly method: string;
  /** The tool or prompt name, or the resource URI (template) being served. */
  readonly name: string;
  /** The JSON-RPC id of the request (a task round's own id, `task:<taskId>:<version>`). */
  readonly requestId: string | number;
  /** The authenticated caller, as handlers see it (`ctx.principal`); undefined when anonymous. */
  readonly principal?: string;
  /** The verified access token's content, when the call carried one. */
  readonly accessToken?: McpAccessToken;
  /** Who the call is counted and cached for (`McpExecutionContext.getCallerKey()`). */
  readonly callerKey: string;
  /** The task the run belongs to, in a task's rounds. */
  readonly taskId?: string;
  /**
   * The trace ids of the call: its own span's (trace id, span id) when OpenTelemetry records one
   * (docs/observability.md), else those of the request's `_meta.traceparent` (W3C Trace Context) when it carried a
   * valid one. `aroundHandler` runs inside the call's span, so `trace.getActiveSpan()` works there too.
   */
  readonly traceIds?: TraceIds;
}

/**
 * Wraps every run of a handler's pipeline: call `run()` inside your context (an `AsyncLocalStorage`, `nestjs-cls`,
 * a logging context) and return what it returns. Its rejection is the handler's failure; throw only to refuse the
 * call (the error is mapped like one from a guard).
 *
 * @example `aroundHandler: (call, run) => cls.run(() => { cls.set('principal', call.principal); return run(); })`
 */
export type McpAroundHandler = (call: McpHandlerCall, run: () => Promise<unknown>) => Promise<unknown>;
