import { Injectable, Logger } from '@nestjs/common';
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
import type { McpMethodHandler } from './mcp-feature.interface.js';
import { McpPromptsService } from './prompts.service.js';
import { McpResourcesService } from './resources.service.js';
import { McpToolsService } from './tools.service.js';
import { McpSubscriptionsService } from '../subscriptions/subscriptions.service.js';

interface Route {
  /** The server capability that must be advertised for the method to exist (`-32601` otherwise). */
  capability?: string;
  handle: McpMethodHandler;
}

/**
 * Routes a request to its feature service and turns the outcome into the final JSON-RPC response on the request's
 * channel: every result gets `resultType` and `serverInfo`; every failure becomes a JSON-RPC error.
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  private readonly routes: ReadonlyMap<string, Route>;
  private readonly resultMeta?: JsonObject;
  /** Set with the option `progress: 'stderr'`: where progress of token-less requests is written. */
  private readonly progressEvents?: ProgressEventWriter;

  constructor(
    private readonly discover: McpDiscoverService,
    tools: McpToolsService,
    prompts: McpPromptsService,
    resources: McpResourcesService,
    completion: McpCompletionService,
    subscriptions: McpSubscriptionsService,
    options: McpResolvedOptions,
  ) {
    this.routes = new Map<string, Route>([
      ['server/discover', { handle: () => discover.discover() }],
      ['tools/list', { capability: 'tools', handle: (scope) => tools.list(scope) }],
      ['tools/call', { capability: 'tools', handle: (scope) => tools.call(scope) }],
      ['prompts/list', { capability: 'prompts', handle: (scope) => prompts.list(scope) }],
      ['prompts/get', { capability: 'prompts', handle: (scope) => prompts.get(scope) }],
      ['resources/list', { capability: 'resources', handle: (scope) => resources.list(scope) }],
      ['resources/templates/list', { capability: 'resources', handle: (scope) => resources.listTemplates(scope) }],
      ['resources/read', { capability: 'resources', handle: (scope) => resources.read(scope) }],
      ['completion/complete', { capability: 'completions', handle: (scope) => completion.complete(scope) }],
      ['subscriptions/listen', { handle: (scope) => subscriptions.listen(scope, this.listenFeatures()) }],
    ]);
    this.resultMeta = options.serverInfoInResults ? { [MetaKeys.serverInfo]: options.serverInfo } : undefined;
    this.progressEvents = options.progress === 'stderr' ? new ProgressEventWriter(process.stderr) : undefined;
  }

  /** Throws `-32601` (HTTP 404) unless the method exists and its capability is advertised. */
  assertMethodAvailable(method: string): void {
    const route = this.routes.get(method);
    if (!route || (route.capability && !(route.capability in this.discover.capabilities()))) {
      throw McpError.methodNotFound(method);
    }
  }

  /** Runs the request and resolves with its raw result (no `resultType` or `serverInfo` yet) or its error. */
  async execute(scope: McpRequestScope): Promise<{ ok: true; result: JsonObject } | { ok: false; error: McpError }> {
    // Every transport comes through here, so this is the one place that applies the `progress: 'stderr'` option.
    if (this.progressEvents && scope.meta.progressToken === undefined && !scope.progressFallback) {
      scope = { ...scope, progressFallback: this.stderrProgress(scope) };
    }
    try {
      this.assertMethodAvailable(scope.method);
      return { ok: true, result: await this.routes.get(scope.method)!.handle(scope) };
    } catch (error) {
      return { ok: false, error: error instanceof McpError ? error : this.unexpected(error, scope.method) };
    }
  }

  /** Runs a 2026-07-28 request and sends its final response on the scope's channel. Never throws. */
  async dispatch(scope: McpRequestScope): Promise<void> {
    const outcome = await this.execute(scope);
    if (outcome.ok) scope.channel.respond({ jsonrpc: '2.0', id: scope.id, result: this.decorate(outcome.result) });
    else scope.channel.respond(errorResponse(scope.id, outcome.error), outcome.error.httpStatus);
  }

  private stderrProgress(scope: McpRequestScope): NonNullable<McpRequestScope['progressFallback']> {
    const traceparent = scope.meta.raw[TRACEPARENT_META_KEY];
    return (progress, total, message) => this.progressEvents!.write(createProgressEvent({ progress, total, message }, { traceparent }));
  }

  private listenFeatures() {
    const capabilities = this.discover.capabilities();
    return { tools: 'tools' in capabilities, prompts: 'prompts' in capabilities, resources: 'resources' in capabilities };
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
