import { MetaKeys } from './meta-keys.constants.js';
import { McpError } from './mcp.error.js';
import { MCP_LOG_LEVELS, type McpLogLevel } from './mcp-wire.interface.js';
import type { JsonObject } from './json-rpc.interface.js';
import type { McpRequestMeta } from './request-meta.interface.js';
import { isJsonObject } from './json-object.util.js';

const LOG_LEVELS: ReadonlySet<string> = new Set(MCP_LOG_LEVELS);

/** Whether a request's params carry the 2026-07-28 `_meta` envelope (used to tell the two wires apart). */
export function hasStatelessEnvelope(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return isJsonObject(meta) && MetaKeys.protocolVersion in meta;
}

/**
 * Reads and checks the per-request `_meta` fields (spec 2026-07-28: basic/index, "`_meta`"). Missing or ill-typed
 * required fields are a malformed request: `-32602` with HTTP 400. The protocol version itself is checked against the
 * supported list by the caller, after the header checks.
 */
export function parseRequestMeta(params: JsonObject | undefined): McpRequestMeta {
  const meta = params?._meta;
  if (!isJsonObject(meta)) {
    throw McpError.invalidParams(
      'Invalid params: _meta with the protocol version and client capabilities is required',
      undefined,
      400,
    );
  }
  const protocolVersion = meta[MetaKeys.protocolVersion];
  if (typeof protocolVersion !== 'string' || protocolVersion.length === 0) {
    throw McpError.invalidParams(
      `Invalid params: _meta["${MetaKeys.protocolVersion}"] must be a string`,
      undefined,
      400,
    );
  }
  const clientCapabilities = meta[MetaKeys.clientCapabilities];
  if (!isJsonObject(clientCapabilities)) {
    throw McpError.invalidParams(
      `Invalid params: _meta["${MetaKeys.clientCapabilities}"] must be an object`,
      undefined,
      400,
    );
  }
  const clientInfo = meta[MetaKeys.clientInfo];
  if (clientInfo !== undefined && !isJsonObject(clientInfo)) {
    throw McpError.invalidParams(`Invalid params: _meta["${MetaKeys.clientInfo}"] must be an object`, undefined, 400);
  }
  const logLevel = meta[MetaKeys.logLevel];
  if (logLevel !== undefined && (typeof logLevel !== 'string' || !LOG_LEVELS.has(logLevel))) {
    throw McpError.invalidParams(
      `Invalid params: unknown log level; expected one of ${MCP_LOG_LEVELS.join(', ')}`,
      undefined,
      400,
    );
  }
  const progressToken = meta[MetaKeys.progressToken];
  const validToken =
    progressToken === undefined ||
    typeof progressToken === 'string' ||
    (typeof progressToken === 'number' && Number.isInteger(progressToken));
  if (!validToken) {
    throw McpError.invalidParams('Invalid params: progressToken must be a string or an integer', undefined, 400);
  }
  return {
    protocolVersion,
    clientCapabilities,
    clientInfo: clientInfo as McpRequestMeta['clientInfo'],
    logLevel: logLevel as McpLogLevel | undefined,
    progressToken: progressToken as string | number | undefined,
    raw: meta,
  };
}
