import { Injectable, Logger } from '@nestjs/common';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonRpcErrorResponse, JsonRpcId } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { TRACEPARENT_META_KEY } from '../protocol/traceparent.parser.js';
import { createProgressEvent } from '../progress/progress-event.codec.js';
import { ProgressEventWriter } from '../progress/progress-event.writer.js';
import { McpCompletionService } from './completion.service.js';
import { McpDiscoverService } from './discover.service.js';
import type { CallOutcome } from './call-outcome.interface.js';
import { McpListsService } from './lists.service.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { McpRoute } from './mcp-route.interface.js';
import { McpPromptsService } from './prompts.service.js';
import { McpResourcesService } from './resources.service.js';
import { McpToolsService } from './tools.service.js';
import type { McpToolTaskStarter } from './tool-task.starter.js';
import { McpSubscriptionsService } from '../subscriptions/subscriptions.service.js';
import { EVENTS_EXTENSION } from '../protocol/events.constants.js';

/**
 * Knows every method the server has and the feature service that answers it, and runs a request on its route.
 *
 * A route is where a method says what transports need to know about it (`McpRoute`: how its answer travels, whether
 * a disconnect cancels it, which headers mirror its params), so adding a method touches no transport. Each wire
 * profile builds its own table from the core routes here and the routes of the extensions it serves
 * (`routeTable`), and asks `gate` whether a route's capability is advertised. Calls reach `execute` through
 * `McpCallRunner`, which admits, tracks and answers them.
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  /** Set with the option `progress: 'stderr'`: where progress of token-less requests is written. */
  private readonly progressEvents?: ProgressEventWriter;

  constructor(
    private readonly discover: McpDiscoverService,
    private readonly lists: McpListsService,
    private readonly tools: McpToolsService,
    private readonly prompts: McpPromptsService,
    private readonly resources: McpResourcesService,
    private readonly completion: McpCompletionService,
    private readonly subscriptions: McpSubscriptionsService,
    options: McpResolvedOptions,
    private readonly registry: McpRegistry,
  ) {
    this.progressEvents = options.progress === 'stderr' ? new ProgressEventWriter(process.stderr) : undefined;
  }

  /**
   * A wire's route table: the core methods (its `tools/call` turning task tools into tasks with `toolTasks`, when
   * given) and `extensionRoutes`; a method routed twice is refused at startup.
   */
  routeTable(
    toolTasks: McpToolTaskStarter | undefined,
    extensionRoutes: Iterable<readonly [string, McpRoute]>,
  ): ReadonlyMap<string, McpRoute> {
    const { discover, lists, tools, prompts, resources, completion, subscriptions, registry } = this;
    const answer = (handle: McpRoute['handle'], capability?: string, extra?: Partial<McpRoute>): McpRoute => ({
      capability,
      handle,
      delivery: 'response',
      cancellableByDisconnect: true,
      ...extra,
    });
    // With a shared registry state, a list is served once this replica applied every change committed before it.
    const caughtUp =
      (handle: McpRoute['handle']): McpRoute['handle'] =>
      (scope) => {
        const pending = registry.catchUp();
        return pending ? pending.then(() => handle(scope)) : handle(scope);
      };
    const routes = new Map<string, McpRoute>([
      ['server/discover', answer(caughtUp((scope) => discover.discover(scope)))],
      [
        'tools/list',
        answer(
          caughtUp((scope) => lists.tools.page(scope)),
          'tools',
        ),
      ],
      [
        'tools/call',
        answer((scope) => tools.call(scope, toolTasks), 'tools', {
          nameParam: 'name',
          paramHeaders: (params, caller) => tools.paramHeaders(params, caller),
        }),
      ],
      [
        'prompts/list',
        answer(
          caughtUp((scope) => lists.prompts.page(scope)),
          'prompts',
        ),
      ],
      ['prompts/get', answer((scope) => prompts.get(scope), 'prompts', { nameParam: 'name' })],
      [
        'resources/list',
        answer(
          caughtUp((scope) => lists.resources.page(scope)),
          'resources',
        ),
      ],
      [
        'resources/templates/list',
        answer(
          caughtUp((scope) => lists.resourceTemplates.page(scope)),
          'resources',
        ),
      ],
      ['resources/read', answer((scope) => resources.read(scope), 'resources', { nameParam: 'uri' })],
      ['completion/complete', answer((scope) => completion.complete(scope), 'completions')],
      // A stream until the client closes it: SSE only, not timed, not counted (listen streams have caps of their own).
      [
        'subscriptions/listen',
        answer((scope) => subscriptions.listen(scope, this.listenFeatures()), undefined, { delivery: 'stream' }),
      ],
    ]);
    for (const [method, route] of extensionRoutes) {
      if (routes.has(method)) throw new Error(`McpDispatcher: the method ${method} is already routed`);
      routes.set(method, route);
    }
    return routes;
  }

  /** `route` when it exists and its capability or extension is advertised; otherwise `undefined` (`-32601`). */
  gate(route: McpRoute | undefined): McpRoute | undefined {
    if (!route) return undefined;
    if (!route.capability && !route.extension) return route;
    const capabilities = this.discover.capabilities();
    if (route.capability && !(route.capability in capabilities)) return undefined;
    if (route.extension && !Object.hasOwn((capabilities.extensions as object | undefined) ?? {}, route.extension))
      return undefined;
    return route;
  }

  /**
   * Runs the request on `route` (none: `-32601`) and resolves with its raw result (no `resultType` or `serverInfo`
   * yet: the call's wire shapes it) or its error. Never rejects.
   */
  async execute(scope: McpRequestScope, route: McpRoute | undefined): Promise<CallOutcome> {
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

  private stderrProgress(scope: McpRequestScope): NonNullable<McpRequestScope['progressFallback']> {
    // The call's own span when telemetry records one: concurrent calls' lines stay apart even without a traceparent.
    const context = scope.trace ? { traceIds: scope.trace } : { traceparent: scope.meta.raw[TRACEPARENT_META_KEY] };
    return (progress, total, message) =>
      this.progressEvents!.write(createProgressEvent({ progress, total, message }, context));
  }

  private listenFeatures() {
    const capabilities = this.discover.capabilities();
    const events = (capabilities.extensions as Record<string, { listChanged?: unknown } | undefined> | undefined)?.[
      EVENTS_EXTENSION
    ];
    return {
      tools: 'tools' in capabilities,
      prompts: 'prompts' in capabilities,
      resources: 'resources' in capabilities,
      events: events?.listChanged === true,
    };
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
