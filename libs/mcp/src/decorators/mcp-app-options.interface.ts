import type { McpContentBlock, McpGetPromptResult, McpIcon, McpMeta } from '../protocol/mcp-wire.interface.js';

/**
 * Who may use a tool that has an MCP Apps view (`_meta.ui.visibility`): `'model'` — the agent sees and calls it;
 * `'app'` — a view of this server may call it through the host. Hosts enforce it; the server only labels the tool.
 */
export type McpAppVisibility = 'model' | 'app';

/**
 * The `app` option of `@McpTool`: the MCP Apps view (`io.modelcontextprotocol/ui`) a host renders for the tool, and
 * who may call the tool.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Deploys a release', app: { view: 'ui://deploy/board' } })
 * @McpTool({ description: 'Progress of a rollout, for the board', app: { visibility: ['app'] } })
 * ```
 */
export interface McpToolAppOptions {
  /**
   * The `ui://` URI of the view (an `@McpAppView` of this server) that shows this tool's input and result. Required
   * unless the tool is app-only (`visibility: ['app']`): such a tool is called by a view, and may have none of its own.
   */
  view?: string;
  /**
   * Who may call the tool; default both (`['model', 'app']`, then not written on the wire). An app-only tool
   * (`['app']`) is listed only to clients that declared the MCP Apps extension (they hide it from the model); clients
   * without it never see it. It stays callable by anyone who may call tools (visibility is no access control).
   */
  visibility?: readonly McpAppVisibility[];
}

/**
 * The origins a view may reach (`_meta.ui.csp`), from which the host builds the frame's Content Security Policy.
 * Anything not declared is blocked; omit everything for a self-contained view (the restrictive default).
 */
export interface McpAppCsp {
  /** Origins for fetch, XHR and WebSocket (`connect-src`). */
  connectDomains?: readonly string[];
  /** Origins of scripts, styles, images, fonts and media (wildcard subdomains allowed: `https://*.example.com`). */
  resourceDomains?: readonly string[];
  /** Origins of nested frames (`frame-src`); none by default. */
  frameDomains?: readonly string[];
  /** Allowed `<base href>` origins (`base-uri`); the view's own by default. */
  baseUriDomains?: readonly string[];
}

/** Browser features a view asks the host to allow in its frame (`_meta.ui.permissions`); hosts may refuse them. */
export interface McpAppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/**
 * Options of `@McpAppView` (and `McpAppViews.fromFile`): how the view is listed, and the `_meta.ui` hosts read before
 * rendering it (sent on the `resources/read` content and mirrored on the `resources/list` entry).
 */
export interface McpAppViewOptions {
  /** Name for listings; defaults to the method name (the URI for a file). */
  name?: string;
  /** Human-readable name for display. */
  title?: string;
  description?: string;
  icons?: McpIcon[];
  /** Origins the view needs (CSP); omit for a self-contained view. */
  csp?: McpAppCsp;
  /** Browser features the view asks for (camera, microphone, geolocation, clipboard-write). */
  permissions?: McpAppPermissions;
  /** A dedicated sandbox origin, in the format the target host documents (host-specific). */
  domain?: string;
  /** Whether the host should draw a border and background around the view (absent: the host decides). */
  prefersBorder?: boolean;
  /**
   * How long hosts may cache the view, in milliseconds (`ttlMs` of `resources/read`). A view is a template (per-call
   * data travels in tool results), so the default is long: one hour.
   */
  ttlMs?: number;
  /** Extra `_meta` on the listing entry (the `ui` key is written from the options above). */
  _meta?: McpMeta;
}

/**
 * What a companion prompt's `render` returns, as an `@McpPrompt` method may: a string (one user message), messages
 * (strings are user messages), or a whole `{ description?, messages }` result.
 */
export type McpCompanionPromptMessages =
  | string
  | ReadonlyArray<string | { role: 'user' | 'assistant'; content: string | McpContentBlock }>
  | McpGetPromptResult;

/**
 * A prompt that comes with a tool (`@McpTool({ companionPrompt })`): listed in `prompts/list` only for callers who can
 * see the tool, it renders messages that suggest using the tool when fetched with `prompts/get`, and never runs the
 * tool itself. App-only tools cannot have one (the model never sees them).
 *
 * @example
 * ```ts
 * companionPrompt: {
 *   name: 'plan_deploy',
 *   title: 'Plan a deploy',
 *   render: (tool) => `Check the service's health, then roll the new version out with ${tool}.`,
 * }
 * ```
 */
export interface McpCompanionPromptOptions {
  /** Unique prompt name. */
  name: string;
  title?: string;
  description?: string;
  /**
   * The prompt's messages, given the tool's name: a string (one user message), messages, or `{ description?,
   * messages }` — as an `@McpPrompt` method returns. May be async.
   */
  render: (toolName: string) => McpCompanionPromptMessages | Promise<McpCompanionPromptMessages>;
  icons?: McpIcon[];
  _meta?: McpMeta;
}
