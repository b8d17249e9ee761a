import type { McpAccessToken } from './access-token.interface.js';

/** The kinds of handler a caller may see or not (`McpHandlerSummary.kind`); `event` is an event type (`@McpEvent`). */
export type McpHandlerKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate' | 'event';

/**
 * What the `visibility` hook is told about a handler: its kind, the name it is listed under, its URI (resources) or URI
 * template (templates), and the scopes `@McpScopes` requires for it (class and method level together). One object per
 * handler, made at registration: the hook may use it as a key.
 */
export interface McpHandlerSummary {
  readonly kind: McpHandlerKind;
  /** The tool, prompt or event type name; the `name` of a resource or template as listed. */
  readonly name: string;
  /** The resource URI, or the template's URI template; absent for tools, prompts and event types. */
  readonly uri?: string;
  /** Every scope a caller needs (empty: none). */
  readonly scopes: readonly string[];
}

/**
 * Who is calling, as the scope check and the `visibility` hook see it.
 *
 * - A call that carries a verified access token (HTTP with `auth`, or the testing kit's `caller` option), and a round
 *   of a task created by such a call (it keeps the token's claims): `scopes` are the token's, `trusted` is false, and
 *   `@McpScopes` is enforced against them (with the configured hierarchy).
 * - A local call (stdio, the in-process testing kit without `caller`) and a round of a task whose creation was
 *   authorized without a token: `trusted` is true, `scopes` is empty, and `@McpScopes` is not enforced (stdio is not
 *   authorized by OAuth: its caller is the process that started the server). The `visibility` hook still applies.
 * - An HTTP call without a token (a server without `auth`), or a task round that was not authorized at creation:
 *   `trusted` is false and `scopes` is empty, so a handler with `@McpScopes` is hidden and refused (fail closed).
 */
export interface McpCaller {
  /** The authenticated caller (with `auth`: from the verified token); undefined when anonymous. */
  readonly principal?: string;
  /** The scopes the caller's token grants, as granted (the hierarchy is not expanded here). */
  readonly scopes: readonly string[];
  /** The verified token's content, when the call carried one. */
  readonly accessToken?: McpAccessToken;
  /** A local or already-authorized call: `@McpScopes` is not enforced for it (see above). */
  readonly trusted: boolean;
}

/**
 * Decides whether `caller` may see a handler, on top of its scopes: in `tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list` and `completion/complete`, and on a direct call — a handler hidden by
 * the hook answers exactly like one that does not exist. Runs per handler per request, so it is synchronous and
 * should be cheap; anything but `true` hides the handler (a throw too).
 *
 * @example `visibility: (handler, caller) => !handler.name.startsWith('admin_') || caller.principal === 'root'`
 */
export type McpVisibilityHook = (handler: McpHandlerSummary, caller: McpCaller) => boolean;
