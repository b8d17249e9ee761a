import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonObject, JsonRpcErrorResponse, JsonRpcId } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import { TRACEPARENT_META_KEY } from '../protocol/traceparent.parser.js';
import { createProgressEvent } from '../progress/progress-event.codec.js';
import { ProgressEventWriter } from '../progress/progress-event.writer.js';
import { McpCompletionService } from './completion.service.js';
import { McpDiscoverService } from './discover.service.js';
import type { CallOutcome } from './call-outcome.interface.js';
import { McpListsService } from './lists.service.js';
import type { McpRoute } from './mcp-route.interface.js';
import { McpPromptsService } from './prompts.service.js';
import { McpResourcesService } from './resources.service.js';
import { McpToolsService } from './tools.service.js';
import { MCP_ROUTE_EXTENSIONS, type McpRouteExtension } from './route-extension.interface.js';
import { McpSubscriptionsService } from '../subscriptions/subscriptions.service.js';
import { EVENTS_EXTENSION } from '../protocol/events.constants.js';

/**
 * Routes a request to its feature service and turns the outcome into the final JSON-RPC response on the request's
 * channel: every result gets `resultType` and `serverInfo`; every failure becomes a JSON-RPC error.
 *
 * The route table is where a method says what transports need to know about it (`McpRoute`: how its answer travels,
 * whether a disconnect cancels it, which headers mirror its params), so adding a method touches no transport.
 * Calls reach it through `McpCallRunner`, which admits, tracks and answers them.
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  private readonly routes: ReadonlyMap<string, McpRoute>;
  private readonly resultMeta?: JsonObject;
  /** Set with the option `progress: 'stderr'`: where progress of token-less requests is written. */
  private readonly progressEvents?: ProgressEventWriter;

  constructor(
    private readonly discover: McpDiscoverService,
    lists: McpListsService,
    tools: McpToolsService,
    prompts: McpPromptsService,
    resources: McpResourcesService,
    completion: McpCompletionService,
    subscriptions: McpSubscriptionsService,
    options: McpResolvedOptions,
    @Optional() @Inject(MCP_ROUTE_EXTENSIONS) extensions: readonly McpRouteExtension[] = [],
  ) {
    const answer = (handle: McpRoute['handle'], capability?: string, extra?: Partial<McpRoute>): McpRoute => ({
      capability,
      handle,
      delivery: 'response',
      cancellableByDisconnect: true,
      ...extra,
    });
    const routes = new Map<string, McpRoute>([
      ['server/discover', answer((scope) => discover.discover(scope))],
      ['tools/list', answer((scope) => lists.tools.page(scope), 'tools')],
      ['tools/call', answer((scope) => tools.call(scope), 'tools', { paramHeaders: (params, caller) => tools.paramHeaders(params, caller) })],
      ['prompts/list', answer((scope) => lists.prompts.page(scope), 'prompts')],
      ['prompts/get', answer((scope) => prompts.get(scope), 'prompts')],
      ['resources/list', answer((scope) => lists.resources.page(scope), 'resources')],
      ['resources/templates/list', answer((scope) => lists.resourceTemplates.page(scope), 'resources')],
      ['resources/read', answer((scope) => resources.read(scope), 'resources')],
      ['completion/complete', answer((scope) => completion.complete(scope), 'completions')],
      // A stream until the client closes it: SSE only, not timed, not counted (listen streams have caps of their own).
      ['subscriptions/listen', answer((scope) => subscriptions.listen(scope, this.listenFeatures()), undefined, { delivery: 'stream' })],
    ]);
    for (const extension of extensions) {
      for (const [method, route] of extension.routes()) {
        if (routes.has(method)) throw new Error(`McpDispatcher: the method ${method} is already routed`);
        routes.set(method, route);
      }
    }
    this.routes = routes;
    this.resultMeta = options.serverInfoInResults ? { [MetaKeys.serverInfo]: options.serverInfo } : undefined;
    this.progressEvents = options.progress === 'stderr' ? new ProgressEventWriter(process.stderr) : undefined;
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

  /** The route of `method`, or `undefined` when it does not exist or its capability or extension is not advertised. */
  findRoute(method: string): McpRoute | undefined {
    const route = this.routes.get(method);
    if (!route) return undefined;
    if (!route.capability && !route.extension) return route;
    const capabilities = this.discover.capabilities();
    if (route.capability && !(route.capability in capabilities)) return undefined;
    if (route.extension && !Object.hasOwn((capabilities.extensions as object | undefined) ?? {}, route.extension)) return undefined;
    return route;
  }

  /**
   * Runs the request on `route` (looked up when not given; none: `-32601`) and resolves with its raw result (no
   * `resultType` or `serverInfo` yet) or its error. Never rejects.
   */
  async execute(scope: McpRequestScope, route: McpRoute | undefined = this.findRoute(scope.method)): Promise<CallOutcome> {
    // Every call comes through here, so this is the one place that applies the `progress: 'stderr'` option.
    if (this.progressEvents && scope.meta.progressToken === undefined && !scope.progressFallback) {
      scope = { ...scope, progressFallback: this.stderrProgress(scope) };
    }
    try {
      if (!route) throw McpError.methodNotFound(scope.method);
      return { ok: true, result: await route.handle(scope) };
    } catch (error) {
      return { ok: false, error: error instanceof McpError ? error : this.unexpected(error, scope.method) };
    }
  }

  /** Sends the final 2026-07-28 response of an outcome on the scope's channel: the default finish of a call. */
  respond(scope: Pick<McpRequestScope, 'id' | 'channel'>, outcome: CallOutcome): void {
    if (outcome.ok) scope.channel.respond({ jsonrpc: '2.0', id: scope.id, result: this.decorate(outcome.result) });
    else scope.channel.respond(errorResponse(scope.id, outcome.error), outcome.error.httpStatus);
  }

  private stderrProgress(scope: McpRequestScope): NonNullable<McpRequestScope['progressFallback']> {
    // The call's own span when telemetry records one: concurrent calls' lines stay apart even without a traceparent.
    const context = scope.trace ? { traceIds: scope.trace } : { traceparent: scope.meta.raw[TRACEPARENT_META_KEY] };
    return (progress, total, message) => this.progressEvents!.write(createProgressEvent({ progress, total, message }, context));
  }

  private listenFeatures() {
    const capabilities = this.discover.capabilities();
    const events = (capabilities.extensions as Record<string, { listChanged?: unknown } | undefined> | undefined)?.[EVENTS_EXTENSION];
    return { tools: 'tools' in capabilities, prompts: 'prompts' in capabilities, resources: 'resources' in capabilities, events: events?.listChanged === true };
  }

  private decorate(result: JsonObject): JsonObject {
    const decorated: JsonObject = { resultType: 'complete', ...result };
    if (this.resultMeta) {
      const meta = result._meta as JsonObject | undefined;
      decorated._meta = meta ? { ...this.resultMeta, ...meta } : this.resultMeta;
    }
    return decorated;
  }

  private unexpected(error: unknown, method: string): McpError {
    this.logger.error(`Unexpected failure in ${method}`, (error as Error)?.stack ?? String(error));
    return McpError.internal();
  }
}

/** A JSON-RPC error response for `error`; `id` is omitted when it could not be read. */
export function errorResponse(id: JsonRpcId | undefined, error: McpError): JsonRpcErrorResponse {
  const body: JsonRpcErrorResponse['error'] = { code: error.code, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  return id === undefined ? { jsonrpc: '2.0', error: body } : { jsonrpc: '2.0', id, error: body };
}
