import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import { isStatelessVersion, LATEST_PROTOCOL_VERSION } from '../protocol/protocol-version.constants.js';
import type { McpRequestMeta } from '../protocol/request-meta.interface.js';
import { parseRequestMeta } from '../protocol/request-meta.parser.js';
import type { CallOutcome } from './call-outcome.interface.js';
import { MCP_EXTENSIONS, type McpExtension } from './extension.interface.js';
import { errorResponse, McpDispatcher } from './mcp.dispatcher.js';
import type { McpRoute } from './mcp-route.interface.js';
import type { RunningCall } from './running-call.js';
import type { FinalResponse, McpWireProfile } from './wire-profile.interface.js';

/**
 * The 2026-07-28 wire (`McpWireProfile`): the core methods and every extension's routes, `tools/call` with the tasks
 * extension's hook; results with `resultType` (and `serverInfo` in `_meta` with `serverInfoInResults`), errors
 * with their HTTP status; a call lives with its client's connection. HTTP, stdio, the testing kit and task rounds
 * run their 2026 calls with it.
 */
@Injectable()
export class McpModernWire implements McpWireProfile {
  readonly name = 'modern';
  readonly revision = LATEST_PROTOCOL_VERSION;
  readonly connectionBound = true;
  private readonly routes: ReadonlyMap<string, McpRoute>;
  private readonly resultMeta?: JsonObject;
  private readonly supportedVersions: readonly string[];

  constructor(
    private readonly dispatcher: McpDispatcher,
    options: McpResolvedOptions,
    @Optional() @Inject(MCP_EXTENSIONS) extensions: readonly McpExtension[] = [],
  ) {
    const toolTasks = extensions.find((extension) => extension.toolTasks)?.toolTasks;
    this.routes = dispatcher.routeTable(
      toolTasks,
      extensions.flatMap((extension) => [...(extension.routes?.() ?? [])]),
    );
    this.resultMeta = options.serverInfoInResults ? { [MetaKeys.serverInfo]: options.serverInfo } : undefined;
    this.supportedVersions = options.supportedVersions;
  }

  /**
   * The preamble of a 2026-07-28 request, the same for every origin (HTTP, stdio, the testing kit): its `_meta`
   * fields read and checked (`-32602`, HTTP 400), then `agree` (HTTP: the MCP headers against the body, which come
   * before the version; ADR 0009), then its protocol version (`-32022` naming the supported ones).
   */
  preamble(params: JsonObject | undefined, agree?: (meta: McpRequestMeta) => void): McpRequestMeta {
    const meta = parseRequestMeta(params);
    agree?.(meta);
    if (!isStatelessVersion(meta.protocolVersion))
      throw McpError.unsupportedVersion(meta.protocolVersion, this.supportedVersions);
    return meta;
  }

  /**
   * The route of a method that exists and whose capability is advertised, for a transport's checks (read-only);
   * throws `-32601` (HTTP 404) otherwise.
   */
  route(method: string): McpRoute {
    const route = this.findRoute(method);
    if (!route) throw McpError.methodNotFound(method);
    return route;
  }

  findRoute(method: string): McpRoute | undefined {
    return this.dispatcher.gate(this.routes.get(method));
  }

  /**
   * The route `method` has on this wire whether or not its capability is advertised (read-only), for checks that
   * come before the route's own (HTTP: a core method's `Mcp-Name`, ADR 0009); `undefined` for an unknown method.
   */
  declaredRoute(method: string): McpRoute | undefined {
    return this.routes.get(method);
  }

  finalResponse(call: RunningCall, outcome: CallOutcome): FinalResponse {
    if (outcome.ok)
      return { message: { jsonrpc: '2.0', id: call.id, result: this.decorate(outcome.result) }, httpStatus: 200 };
    return { message: errorResponse(call.id, outcome.error), httpStatus: outcome.error.httpStatus };
  }

  private decorate(result: JsonObject): JsonObject {
    const decorated: JsonObject = { resultType: 'complete', ...result };
    if (this.resultMeta) {
      const meta = result._meta as JsonObject | undefined;
      decorated._meta = meta ? { ...this.resultMeta, ...meta } : this.resultMeta;
    }
    return decorated;
  }
}
