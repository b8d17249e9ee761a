import type { IncomingHttpHeaders } from 'node:http';

/** The parts of a Node request the header checks read. */
export interface HeaderSource {
  headers: IncomingHttpHeaders;
  /** Every value of every header, unjoined (Node joins repeated custom headers in `headers`). */
  headersDistinct?: Record<string, string[] | undefined>;
}
import type { ParamHeaderBinding } from '../../protocol/param-header-binding.interface.js';
import type { JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import { McpError } from '../../protocol/mcp.error.js';
import { McpHeaders } from '../../protocol/meta-keys.constants.js';
import { echoed } from '../../protocol/echo.util.js';

const VISIBLE_ASCII = /^[\x20-\x7E]*$/;
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * Reads one header as a single string; a repeated header is a conflict. Node joins the values of a repeated custom
 * header with ", ", so only a value with a comma needs the (costlier, built on first use) distinct view.
 */
function single(source: HeaderSource, name: string): string | undefined {
  const value = source.headers[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || (value.includes(',') && (source.headersDistinct?.[name]?.length ?? 0) > 1)) {
    throw McpError.headerMismatch(`Header mismatch: ${name} was sent more than once`);
  }
  if (!VISIBLE_ASCII.test(value)) {
    throw McpError.headerMismatch(`Header mismatch: ${name} contains invalid characters`);
  }
  return value;
}

/**
 * Decodes the `=?base64?…?=` sentinel of `Mcp-Name` / `Mcp-Param-*` values (spec 2026-07-28:
 * basic/transports/streamable-http, "Value Encoding").
 */
export function decodeHeaderValue(value: string, headerName: string): string {
  const match = BASE64_SENTINEL.exec(value);
  if (!match) return value;
  const encoded = match[1];
  // Strict base64: padded to a multiple of 4 and canonical, so one value has exactly one spelling.
  const decoded = Buffer.from(encoded, 'base64');
  if (encoded.length % 4 !== 0 || decoded.toString('base64') !== encoded) {
    throw McpError.headerMismatch(`Header mismatch: ${headerName} has an invalid base64 value`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(decoded);
  } catch {
    throw McpError.headerMismatch(`Header mismatch: ${headerName} is not valid UTF-8 once decoded`);
  }
}

/**
 * Checks that the standard MCP headers are present (spec 2026-07-28: basic/transports/streamable-http,
 * "Protocol Version Header", "Standard Request Headers" and "Server Validation"). Runs before `_meta` is read, so
 * a missing header wins over a missing `_meta` field. `nameField` is the field `Mcp-Name` mirrors for this method
 * (its route's `nameParam`: `tools/call` `name`, `prompts/get` `name`, `resources/read` `uri`), if any.
 */
export function requireStandardHeaders(headers: HeaderSource, request: JsonRpcRequest, nameField?: string): void {
  if (single(headers, McpHeaders.protocolVersion) === undefined) {
    throw McpError.headerMismatch('Header mismatch: the MCP-Protocol-Version header is required');
  }
  if (single(headers, McpHeaders.method) === undefined) {
    throw McpError.headerMismatch('Header mismatch: the Mcp-Method header is required');
  }
  if (nameField !== undefined && single(headers, McpHeaders.name) === undefined) {
    throw McpError.headerMismatch(`Header mismatch: the Mcp-Name header is required for ${request.method}`);
  }
}

/**
 * Checks that the mirrored headers agree with the body (spec 2026-07-28: basic/transports/streamable-http,
 * "Server Validation"); the body is the source of truth. `nameField` as for `requireStandardHeaders`.
 */
export function checkHeadersAgainstBody(
  headers: HeaderSource,
  request: JsonRpcRequest,
  protocolVersion: string,
  nameField?: string,
): void {
  const versionHeader = single(headers, McpHeaders.protocolVersion);
  if (versionHeader !== protocolVersion) {
    throw McpError.headerMismatch(
      `Header mismatch: MCP-Protocol-Version header value '${versionHeader}' does not match body value '${echoed(protocolVersion)}'`,
    );
  }
  const methodHeader = single(headers, McpHeaders.method);
  if (methodHeader !== request.method) {
    throw McpError.headerMismatch(
      `Header mismatch: Mcp-Method header value '${methodHeader}' does not match body value '${echoed(request.method)}'`,
    );
  }
  const field = nameField;
  if (field !== undefined) {
    const bodyValue = request.params?.[field];
    if (typeof bodyValue !== 'string') {
      throw McpError.invalidParams(`Invalid params: "${field}" must be a non-empty string`);
    }
    const nameHeader = decodeHeaderValue(single(headers, McpHeaders.name) ?? '', 'Mcp-Name');
    if (nameHeader !== bodyValue) {
      throw McpError.headerMismatch(`Header mismatch: Mcp-Name header value does not match body ${field}`);
    }
  }
}

/**
 * Checks the `Mcp-Name` header of an extension's method whose route names the field it mirrors (`McpRoute.nameParam`,
 * e.g. `taskId` for `tasks/get`), once the route is known to exist: required, and equal to the body's value after
 * Base64 decoding; otherwise `-32020`.
 */
export function checkRouteNameHeader(
  headers: HeaderSource,
  params: Record<string, unknown> | undefined,
  field: string,
): void {
  const header = single(headers, McpHeaders.name);
  if (header === undefined)
    throw McpError.headerMismatch(`Header mismatch: the Mcp-Name header is required (it carries ${field})`);
  const bodyValue = params?.[field];
  if (typeof bodyValue !== 'string' || decodeHeaderValue(header, 'Mcp-Name') !== bodyValue) {
    throw McpError.headerMismatch(`Header mismatch: Mcp-Name header value does not match body ${field}`);
  }
}

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against the arguments they mirror (spec 2026-07-28:
 * basic/transports/streamable-http, "Server Behavior for Custom Headers" and "Server Validation"): a value in the
 * body needs its header, equal after Base64 decoding (integers compared numerically); a null or absent argument
 * must not come with one. Unrecognised `Mcp-Param-*` headers are ignored.
 */
export function checkParamHeadersAgainstBody(
  source: HeaderSource,
  args: unknown,
  bindings: readonly ParamHeaderBinding[],
): void {
  for (const binding of bindings) {
    const value = valueAt(args, binding.path);
    const raw = single(source, binding.header);
    const label = `Mcp-Param-${binding.name}`;
    if (value === undefined || value === null) {
      if (raw !== undefined)
        throw McpError.headerMismatch(`Header mismatch: ${label} was sent but the argument has no value`);
      continue;
    }
    if (raw === undefined) throw McpError.headerMismatch(`Header mismatch: the ${label} header is required`);
    const header = decodeHeaderValue(raw, label);
    if (!headerMatches(header, value, binding.type)) {
      throw McpError.headerMismatch(`Header mismatch: ${label} header value does not match the argument`);
    }
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let current = args;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function headerMatches(header: string, value: unknown, type: ParamHeaderBinding['type']): boolean {
  if (type === 'integer' && typeof value === 'number') {
    return /^-?\d+(\.0+)?$/.test(header) && Number(header) === value;
  }
  if (type === 'boolean' && typeof value === 'boolean') return header === String(value);
  return typeof value === 'string' ? header === value : header === JSON.stringify(value);
}
