import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonObject, JsonRpcRequest } from '../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import {
  MCP_LOG_LEVELS,
  type McpClientCapabilities,
  type McpImplementation,
  type McpLogLevel,
} from '../protocol/mcp-wire.interface.js';
import type { McpRequestMeta } from '../protocol/request-meta.interface.js';
import { MCP_EXTENSIONS, type McpExtension } from '../server/extension.interface.js';
import { McpDiscoverService } from '../server/discover.service.js';
import { boundedCapabilities, boundedClientInfo } from './client-profile.util.js';
import { exceedsJsonBytes } from '../protocol/json-size.util.js';
import { McpLegacyTasks } from './legacy-tasks.service.js';
import type { LegacySession } from './legacy-session.js';
import { LATEST_LEGACY_VERSION, LEGACY_PROTOCOL_VERSIONS } from './legacy-versions.constants.js';
import { ABSOLUTE_URI, MAX_URI_LENGTH } from '../protocol/uri.util.js';
import {
  MCP_LISTENER_VISIBILITY,
  type McpListenerSource,
  type McpListenerVisibility,
} from '../protocol/listener-visibility.interface.js';

const LEGACY_VERSIONS = new Set(LEGACY_PROTOCOL_VERSIONS);
const LOG_LEVELS: ReadonlySet<string> = new Set(MCP_LOG_LEVELS);

/**
 * Who sent a session method, as far as the transport knows: the principal and verified token of the exchange, and
 * where it came from (`http`: a remote caller, never trusted as a local one; `stdio`: the process's own client).
 */
export type LegacyCaller = Pick<McpListenerSource, 'principal' | 'accessToken' | 'origin'>;

/** What a 2025-11-25 `initialize` asked for, after version negotiation. */
export interface LegacyHandshake {
  /** The negotiated version: the requested one when served, otherwise the latest legacy one. */
  protocolVersion: string;
  capabilities: McpClientCapabilities;
  clientInfo?: McpImplementation;
}

/**
 * The 2025-11-25 wire without its transport (spec 2025-11-25: basic/lifecycle, basic/utilities/ping and /cancellation,
 * server/utilities/logging, server/resources, "Subscriptions"; docs/two-wires.md): the `initialize` negotiation and
 * result, the methods a session answers itself (`ping`, `logging/setLevel`, `resources/subscribe`), the session
 * notifications, and every other method run through the same dispatcher and handlers as the 2026 wire, with live
 * server→client requests and results and errors reshaped for this revision. Streamable HTTP and stdio both serve
 * sessions with it.
 */
@Injectable()
export class McpLegacyWireService {
  constructor(
    private readonly discover: McpDiscoverService,
    private readonly options: McpResolvedOptions,
    @Optional() private readonly tasks?: McpLegacyTasks,
    @Optional() @Inject(MCP_LISTENER_VISIBILITY) private readonly visibility?: McpListenerVisibility,
    @Optional() @Inject(MCP_EXTENSIONS) private readonly extensions: readonly McpExtension[] = [],
  ) {}

  /**
   * Reads `initialize` params. Negotiation never fails (an unknown version is answered with the latest legacy one
   * and the client decides); missing fields are `-32602`, naming the versions served (legacy clients cannot fall
   * forward, so the message must tell them what would work). A request over `maxInitializeBytes` is `-32602` with HTTP
   * 413: measured by `messageBytes` (the body's length, known to the transport) or, when not given, by a walk of
   * `params` that stops at the limit. The handshake holds bounded copies of what the server reads, never the client's
   * objects: a session keeps them for its whole life.
   */
  readHandshake(params: JsonObject, messageBytes?: number): LegacyHandshake {
    const limit = this.options.maxInitializeBytes;
    if (messageBytes !== undefined ? messageBytes > limit : exceedsJsonBytes(params, limit)) {
      throw McpError.invalidParams(
        `Invalid params: an initialize request may be at most ${limit} bytes (McpModule option maxInitializeBytes); send only protocolVersion, capabilities and clientInfo`,
        { limit },
        413,
      );
    }
    const requested = params.protocolVersion;
    const capabilities = params.capabilities;
    if (
      typeof requested !== 'string' ||
      typeof capabilities !== 'object' ||
      capabilities === null ||
      Array.isArray(capabilities)
    ) {
      throw McpError.invalidParams(
        `Invalid params: initialize needs protocolVersion and capabilities; this server speaks ${[LATEST_LEGACY_VERSION, ...LEGACY_PROTOCOL_VERSIONS.slice(1)].join(', ')} and 2026-07-28`,
      );
    }
    return {
      protocolVersion: LEGACY_VERSIONS.has(requested) ? requested : LATEST_LEGACY_VERSION,
      capabilities: boundedCapabilities(capabilities as JsonObject),
      clientInfo: boundedClientInfo(params.clientInfo),
    };
  }

  /**
   * The `InitializeResult` of a session (spec 2025-11-25: basic/lifecycle, "Initialization"): `serverInfo` is
   * top-level on this wire. Its capabilities are built for `caller` (who sent the `initialize`) exactly as
   * `server/discover` shows them to it: a feature the caller may not use (no prompt, resource or task tool it may see)
   * is not advertised, though its methods exist for everyone.
   */
  initializeResult(protocolVersion: string, caller: LegacyCaller): JsonObject {
    // What each extension's face on this wire declares (McpExtension.legacy): skills and MCP Apps their entry under
    // `extensions`, tasks the `tasks` capability of this revision; an extension without one (events, SEP-3415,
    // "Backward Compatibility") declares nothing, neither its entry nor a top-level key of its own.
    const { extensions, ...capabilities } = this.discover.capabilitiesFor(caller);
    const shown = (extensions ?? {}) as JsonObject;
    const declared: JsonObject = {};
    const faces: JsonObject = {};
    for (const extension of this.extensions) {
      const entry = shown[extension.id] as JsonObject | undefined;
      if (!extension.legacy) {
        for (const key of Object.keys(extension.capabilities?.() ?? {})) delete capabilities[key];
      } else if (entry !== undefined) {
        if (extension.legacy.capabilities) Object.assign(faces, extension.legacy.capabilities(entry));
        else declared[extension.id] = entry;
      }
    }
    if (Object.keys(declared).length > 0) capabilities.extensions = declared;
    Object.assign(capabilities, faces);
    return {
      protocolVersion,
      capabilities,
      serverInfo: this.options.serverInfo,
      ...(this.options.instructions !== undefined && { instructions: this.options.instructions }),
    };
  }

  /** A client notification of the session; unknown ones (e.g. `notifications/roots/list_changed`) are ignored. */
  notification(session: LegacySession, method: string, params: JsonObject): void {
    if (method === 'notifications/initialized') session.initialized = true;
    else if (method === 'notifications/cancelled') session.cancelCall(params.requestId, params.reason);
  }

  /**
   * Answers the methods that only exist on this wire and only touch the session; `undefined` for everything the
   * dispatcher serves. Failures are `McpError`s with HTTP status 200: on this wire a 404 means "session gone".
   *
   * `caller` is who sent it (HTTP: the exchange's principal and verified token); without it, the session's
   * principal, remote for an HTTP session (fail closed: no token, so no scopes) and local for stdio's. It judges
   * `resources/subscribe`: a URI the caller may not read (`@McpScopes`, the `visibility` hook) is answered exactly
   * like an unknown URI — `{}`, and the subscription counts against the session's bounds — but no update of it is
   * ever delivered (see `LegacySession.watchAs`).
   */
  sessionMethod(session: LegacySession, message: JsonRpcRequest, caller?: LegacyCaller): JsonObject | undefined {
    const params = message.params ?? {};
    switch (message.method) {
      case 'ping':
        return {};
      case 'logging/setLevel': {
        if (!('logging' in this.discover.capabilities())) throw methodNotFound(message.method);
        if (typeof params.level !== 'string' || !LOG_LEVELS.has(params.level)) {
          throw McpError.invalidParams(`Invalid params: level must be one of ${MCP_LOG_LEVELS.join(', ')}`);
        }
        session.logLevel = params.level as McpLogLevel;
        return {};
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        if (!('resources' in this.discover.capabilities())) throw methodNotFound(message.method);
        if (typeof params.uri !== 'string' || params.uri.length > MAX_URI_LENGTH || !ABSOLUTE_URI.test(params.uri)) {
          throw McpError.invalidParams(
            `Invalid params: uri must be an absolute URI of at most ${MAX_URI_LENGTH} characters`,
          );
        }
        if (message.method === 'resources/unsubscribe') {
          session.unsubscribe(params.uri);
          return {};
        }
        session.subscribe(params.uri);
        session.watchAs(this.subscriberOf(session, caller), this.visibility);
        return {};
      }
      case 'tools/call':
        // The tool runs through the dispatcher; only a task param it cannot take is refused here.
        this.tasks?.checkTaskParam(params);
        return undefined;
      case 'initialize':
        throw McpError.invalidRequest('Invalid Request: this session is already initialized');
      case 'subscriptions/listen':
        throw methodNotFound(message.method);
      default:
        return undefined;
    }
  }

  /** What a session keeps of the caller of `resources/subscribe`: never the HTTP objects of the exchange. */
  private subscriberOf(session: LegacySession, caller: LegacyCaller | undefined): McpListenerSource {
    if (!caller) return { principal: session.principal, origin: session.remote ? 'http' : 'stdio' };
    return { principal: caller.principal, accessToken: caller.accessToken, origin: caller.origin };
  }

  /**
   * What a session call carries instead of the 2026 `_meta` envelope: the session's negotiated version, capabilities,
   * client info and log level, and the request's own `progressToken`.
   */
  callMeta(session: LegacySession, params: JsonObject): McpRequestMeta {
    const meta =
      typeof params._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
    const progressToken = meta.progressToken;
    return {
      protocolVersion: session.protocolVersion,
      clientCapabilities: session.capabilities,
      clientInfo: session.clientInfo,
      logLevel: session.logLevel,
      progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
      raw: meta,
    };
  }
}

/** `-32601` as the 2025-11-25 wire sends it: with HTTP 200 (a 404 would tell the client its session is gone). */
function methodNotFound(method: string): McpError {
  return new McpError(McpErrorCode.MethodNotFound, `Method not found: ${method}`);
}
