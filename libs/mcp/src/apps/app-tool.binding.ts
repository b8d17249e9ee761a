import type { McpAppVisibility, McpToolAppOptions } from '../decorators/mcp-app-options.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { McpMeta } from '../protocol/mcp-wire.interface.js';
import { ABSOLUTE_ASCII_URI } from '../protocol/uri.util.js';
import { MCP_APP_RESOURCE_URI_META_KEY, MCP_APP_URI_SCHEME } from './apps.constants.js';

const VISIBILITIES: ReadonlySet<string> = new Set<McpAppVisibility>(['model', 'app']);
/** Keys of a view's `_meta.ui` that hosts ignore on a tool (ext-apps: they belong on the view's resource). */
const VIEW_ONLY_KEYS = ['csp', 'permissions', 'domain', 'prefersBorder'] as const;

/** A tool's MCP Apps binding, checked: its view, who may call it, and the `_meta` it is listed with. */
export interface McpToolAppBinding {
  /** The `ui://` URI of the tool's view; absent for an app-only tool without one. */
  readonly view?: string;
  /** As declared; absent: the default (model and app). */
  readonly visibility?: readonly McpAppVisibility[];
  /** Exactly `['app']`: listed only to clients that declared the MCP Apps extension. */
  readonly appOnly: boolean;
  /** The tool's `_meta`: the declared one with `ui.resourceUri`, `ui.visibility` and the flat `ui/resourceUri`. */
  readonly meta: McpMeta;
}

/** Whether `uri` is a `ui://` URI a `resources/read` can name (absolute, printable ASCII). */
export function isAppViewUri(uri: unknown): uri is string {
  return (
    typeof uri === 'string' &&
    ABSOLUTE_ASCII_URI.test(uri) &&
    uri.slice(0, MCP_APP_URI_SCHEME.length).toLowerCase() === MCP_APP_URI_SCHEME
  );
}

/**
 * Checks a tool's `app` option (or, without one, an MCP Apps `_meta.ui` written by hand) and builds its binding;
 * `undefined` for a tool without either. Throws an `Error` saying what is wrong (the caller names the tool):
 * a view that is not a `ui://` URI, an unknown or empty visibility, a view missing on a tool the model may call,
 * view-only keys (`csp`, `permissions`, …) on the tool, or two views that disagree.
 */
export function toolAppBinding(
  app: McpToolAppOptions | undefined,
  meta: McpMeta | undefined,
): McpToolAppBinding | undefined {
  const declaredUi = meta?.ui;
  const flat = meta?.[MCP_APP_RESOURCE_URI_META_KEY];
  if (app === undefined) {
    if (declaredUi === undefined && flat === undefined) return undefined;
    return bind(fromMeta(declaredUi, flat), meta ?? {});
  }
  if (!isJsonObject(app)) throw new Error('app must be an object { view?, visibility? }');
  if (declaredUi !== undefined || flat !== undefined) {
    throw new Error('declare the view with app or with _meta.ui / _meta["ui/resourceUri"], not both');
  }
  return bind(app, meta ?? {});
}

/** The `app` options a hand-written `_meta.ui` (or the deprecated flat key alone) stands for. */
function fromMeta(ui: unknown, flat: unknown): McpToolAppOptions {
  if (ui !== undefined && !isJsonObject(ui)) throw new Error('_meta.ui must be an object');
  for (const key of VIEW_ONLY_KEYS) {
    if (ui && key in ui) throw new Error(`_meta.ui.${key} belongs on the view (@McpAppView), not on the tool`);
  }
  const nested = ui?.resourceUri;
  if (nested !== undefined && flat !== undefined && nested !== flat) {
    throw new Error(
      `_meta.ui.resourceUri (${String(nested)}) and _meta["ui/resourceUri"] (${String(flat)}) name different views`,
    );
  }
  return { view: (nested ?? flat) as string | undefined, visibility: ui?.visibility as McpAppVisibility[] | undefined };
}

function bind(app: McpToolAppOptions, meta: McpMeta): McpToolAppBinding {
  const { view, visibility } = app;
  if (visibility !== undefined) {
    if (!Array.isArray(visibility) || visibility.length === 0)
      throw new Error(`app visibility must be a non-empty array of 'model' and 'app'`);
    for (const value of visibility) {
      if (!VISIBILITIES.has(value))
        throw new Error(`app visibility ${JSON.stringify(value)} is neither 'model' nor 'app'`);
    }
    if (new Set(visibility).size !== visibility.length) throw new Error('app visibility lists a value twice');
  }
  const appOnly = visibility !== undefined && !visibility.includes('model');
  if (view === undefined) {
    if (!appOnly) throw new Error(`app needs a view (a ui:// URI) unless the tool is app-only (visibility: ['app'])`);
  } else if (!isAppViewUri(view)) {
    throw new Error(
      `app view ${JSON.stringify(view)} must be a ui:// URI of printable ASCII (MCP Apps views live at ui:// URIs)`,
    );
  }
  const { ui: declaredUi, [MCP_APP_RESOURCE_URI_META_KEY]: _flat, ...rest } = meta;
  const ui = {
    ...(isJsonObject(declaredUi) ? declaredUi : {}),
    ...(view !== undefined && { resourceUri: view }),
    ...(visibility !== undefined && { visibility: [...visibility] }),
  };
  // The flat key is deprecated but still read by older hosts: written with the same value (ext-apps registerAppTool).
  const written: McpMeta = { ...rest, ui, ...(view !== undefined && { [MCP_APP_RESOURCE_URI_META_KEY]: view }) };
  return Object.freeze({
    ...(view !== undefined && { view }),
    ...(visibility !== undefined && { visibility: Object.freeze([...visibility]) }),
    appOnly,
    meta: written,
  });
}
