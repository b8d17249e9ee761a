import type { McpClientCapabilities, McpImplementation, McpLogLevel } from '../protocol/mcp-wire.interface.js';
import type { McpElicitHandler, McpTestingAnswer } from './mcp-testing-input.interface.js';
import type { McpProgressUpdate } from './mcp-testing-notifications.interface.js';

/**
 * A caller as an authorization server would vouch for it, for in-process tests of `@McpScopes`, the `visibility`
 * hook, `@McpPrincipal()` and guards, without an authorization server: the call carries a verified access token with
 * these fields (as the HTTP transport gives one after checking a real bearer token).
 */
export interface McpTestingCaller {
  /**
   * The token's subject (`sub`). The call's principal is the one the module derives from a verified token:
   * `auth.principal(token)` when configured, else this subject, or `<issuer>#<subject>` when `auth` trusts several
   * authorization servers (then `issuer` is required).
   */
  subject: string;
  /** The token's issuer (`iss`). Required when `auth` trusts several authorization servers. */
  issuer?: string;
  /** The scopes the token grants. Default none. */
  scopes?: readonly string[];
  /** The OAuth client the token was issued to (`client_id`). */
  clientId?: string;
  /** More claims of the token, for guards that read them (`sub` and `scope` are set from the fields above). */
  claims?: Record<string, unknown>;
}

/**
 * What a test controls about the requests a {@link McpTestingClient} sends. Given to the client, these are the
 * defaults of every call; given to one call, they override the client's (`headers` are merged, the rest replaced).
 */
export interface McpTestingRequestOptions {
  /** What the client declares it can answer (`_meta` clientCapabilities). Default `{}`: no elicitation. */
  capabilities?: McpClientCapabilities;
  /** Opts in to `notifications/message` at this level and above (`_meta` logLevel). Default: no logs. */
  logLevel?: McpLogLevel;
  /** Sends a progress token, so handlers' progress is collected in `result.progress`. Default true. */
  progress?: boolean;
  /** HTTP headers: sent over HTTP, or put on the request object guards receive in-process. */
  headers?: Record<string, string>;
  /** `request.user`, as an auth guard or Passport would set it. In-process only. */
  user?: unknown;
  /** The caller `requestState` is bound to, instead of the module's `principal(request)`. In-process only. */
  principal?: string;
  /**
   * Calls as this caller, with a verified access token (`McpTestingCaller`): `@McpScopes` is checked against its
   * scopes (with the module's `auth.scopeHierarchy`), lists show what it may see, and `ctx.accessToken`,
   * `@McpPrincipal()` and `McpExecutionContext.getPrincipal()` see it. In-process only (over HTTP, send a real token:
   * `headers: { authorization: 'Bearer …' }`). Without it, an in-process call is a local one, like stdio: scopes are
   * not checked (the `visibility` hook still applies). See also `client.as(caller)`.
   */
  caller?: McpTestingCaller;
  /** More fields of the request object guards receive (e.g. `{ ip: '10.0.0.7' }`). In-process only. */
  request?: Record<string, unknown>;
  /** Extra `_meta` keys (trace context, extensions), next to the protocol's own. */
  meta?: Record<string, unknown>;
  /** `_meta` clientInfo. Default `{ name: 'nest-mcp-testing', version: '1.0.0' }`. */
  clientInfo?: McpImplementation;
  /** Most rounds of one call before the client gives up on a handler that keeps asking. Default 10. */
  maxRounds?: number;
  /**
   * `McpTestingClient.create` only: with several servers in the application (docs/servers.md), the `name` of the one
   * to call. Default: the only one.
   */
  server?: string;
}

/** Options of one call: the request options, plus what only makes sense per call. */
export interface McpTestingCallOptions extends McpTestingRequestOptions {
  /** Cancels the call: in-process the handler's `ctx.signal` aborts, over HTTP the connection is dropped. */
  signal?: AbortSignal;
  /** Sees every progress notification as it arrives (e.g. to cancel half-way). */
  onProgress?: (update: McpProgressUpdate) => void;
  /** Answers for this call's input requests, used before the client's own (see `answerWith`). */
  answers?: McpTestingAnswer[];
  /** Answers this call's input requests when `answers` has run out, before the client's own handler. */
  onElicit?: McpElicitHandler;
}
