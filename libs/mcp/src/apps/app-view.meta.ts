import type { McpAppViewOptions } from '../decorators/mcp-app-options.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { McpReadResourceResult, McpResourceContents } from '../protocol/mcp-wire.interface.js';
import { DEFAULT_APP_VIEW_TTL_MS, MCP_APP_MIME_TYPE } from './apps.constants.js';

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = new Set(['camera', 'microphone', 'geolocation', 'clipboardWrite']);
/**
 * A CSP source as hosts paste it into a policy: a scheme, `://`, and a host (optionally `*.`-prefixed) with an
 * optional port and path — never white space, quotes, commas or semicolons, which would change the policy itself.
 */
const CSP_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(\*\.)?[a-z0-9.-]+(:(\d+|\*))?(\/[^\s;,'"]*)?$/i;

/** A view's `_meta.ui` (ext-apps `McpUiResourceMeta`) and cache lifetime, checked. */
export interface McpAppViewSettings {
  /** `_meta.ui` of the view (on the read content item and the listing); absent when nothing is declared. */
  readonly ui?: Readonly<Record<string, unknown>>;
  /** `ttlMs` of its `resources/read`. */
  readonly ttlMs: number;
}

/**
 * Checks a view's options and builds its `_meta.ui`: CSP domains must be origins (`https://api.example.com`,
 * `https://*.example.com`), permissions among camera, microphone, geolocation and clipboardWrite, `domain` a
 * non-empty string, `prefersBorder` a boolean, `ttlMs` a non-negative integer. Throws an `Error` naming the field.
 */
export function appViewSettings(options: McpAppViewOptions): McpAppViewSettings {
  const ui: Record<string, unknown> = {};
  if (options.csp !== undefined) {
    if (!isJsonObject(options.csp)) throw new Error('csp must be an object of domain lists');
    const csp: Record<string, string[]> = {};
    for (const [key, value] of Object.entries(options.csp)) {
      if (!(CSP_KEYS as readonly string[]).includes(key))
        throw new Error(`csp.${key} is not one of ${CSP_KEYS.join(', ')}`);
      if (value === undefined) continue;
      if (!Array.isArray(value)) throw new Error(`csp.${key} must be an array of origins`);
      for (const origin of value) {
        if (typeof origin !== 'string' || !CSP_ORIGIN.test(origin)) {
          throw new Error(
            `csp.${key} has ${JSON.stringify(origin)}, which is not an origin such as https://api.example.com`,
          );
        }
      }
      csp[key] = [...value];
    }
    ui.csp = csp;
  }
  if (options.permissions !== undefined) {
    if (!isJsonObject(options.permissions)) throw new Error('permissions must be an object');
    const permissions: Record<string, Record<string, never>> = {};
    for (const [key, value] of Object.entries(options.permissions)) {
      if (!PERMISSIONS.has(key)) throw new Error(`permissions.${key} is not one of ${[...PERMISSIONS].join(', ')}`);
      if (value === undefined) continue;
      if (!isJsonObject(value)) throw new Error(`permissions.${key} must be {}`);
      permissions[key] = {};
    }
    ui.permissions = permissions;
  }
  if (options.domain !== undefined) {
    if (typeof options.domain !== 'string' || options.domain.trim() === '')
      throw new Error('domain must be a non-empty string');
    ui.domain = options.domain;
  }
  if (options.prefersBorder !== undefined) {
    if (typeof options.prefersBorder !== 'boolean') throw new Error('prefersBorder must be a boolean');
    ui.prefersBorder = options.prefersBorder;
  }
  const ttlMs = options.ttlMs ?? DEFAULT_APP_VIEW_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) throw new Error('ttlMs must be a non-negative integer (milliseconds)');
  return Object.keys(ui).length > 0 ? { ui: Object.freeze(ui), ttlMs } : { ttlMs };
}

/**
 * The `resources/read` result of a view from what its method returned: exactly one content item for `uri`, with the
 * MCP Apps MIME type, the HTML as `text` (a string) or base64 `blob` (bytes), `_meta.ui` on the item, and the view's
 * `ttlMs`. Anything else throws a `TypeError` (a view is one HTML document).
 */
export function appViewResult(
  uri: string,
  returned: unknown,
  settings: McpAppViewSettings,
): McpReadResourceResult & { ttlMs: number } {
  let body: { text: string } | { blob: string };
  if (typeof returned === 'string') body = { text: returned };
  else if (returned instanceof Uint8Array)
    body = { blob: Buffer.from(returned.buffer, returned.byteOffset, returned.byteLength).toString('base64') };
  else throw new TypeError('an MCP Apps view must return its HTML document, as a string or bytes');
  const item = {
    uri,
    mimeType: MCP_APP_MIME_TYPE,
    ...body,
    ...(settings.ui && { _meta: { ui: settings.ui } }),
  } as McpResourceContents;
  return { contents: [item], ttlMs: settings.ttlMs };
}
