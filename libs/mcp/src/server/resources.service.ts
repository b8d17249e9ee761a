import { Injectable, Logger } from '@nestjs/common';
import { McpResourceContext } from '../context/mcp-resource.context.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { ResourceEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { protocolFailure } from './exception.mapper.js';
import { McpHandlerInvoker } from './handler.invoker.js';
import { requireString } from './params.util.js';
import { resourceResultOf } from './result-shapers.js';
import { ABSOLUTE_ASCII_URI, MAX_URI_LENGTH } from '../protocol/uri.util.js';
import type { McpHandlerSummary } from '../protocol/mcp-caller.interface.js';
import { McpAccessPolicy } from './access.policy.js';

/** `resources/read`; `McpListsService` answers `resources/list` and `resources/templates/list`. */
@Injectable()
export class McpResourcesService {
  private readonly logger = new Logger('McpResources');

  constructor(
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
    private readonly invoker: McpHandlerInvoker,
    private readonly access: McpAccessPolicy,
  ) {}

  async read(scope: McpRequestScope): Promise<JsonObject> {
    const uri = requireString(scope.params, 'uri');
    if (uri.length > MAX_URI_LENGTH) throw McpError.resourceNotFound(uri);
    if (!ABSOLUTE_ASCII_URI.test(uri)) {
      throw McpError.invalidParams('Invalid params: uri must be an absolute URI of printable ASCII characters');
    }
    // A resource or template the `visibility` hook hides is skipped as if it did not exist (the URI may still match
    // another template), so the caller gets exactly what an unknown URI gets.
    // Unknown here: with a shared registry state, another replica may have just registered it (or a template).
    let resource = this.registry.getResource(uri) ?? (await this.registry.catchUp(), this.registry.getResource(uri));
    if (resource && this.access.hides(scope, resource.summary)) resource = undefined;
    let target:
      | {
          name: string;
          mimeType?: string;
          handler: ResourceEntry['handler'];
          input: unknown;
          summary: McpHandlerSummary;
        }
      | undefined;
    if (resource) {
      target = {
        name: uri,
        mimeType: resource.definition.mimeType,
        handler: resource.handler,
        input: {},
        summary: resource.summary,
      };
    } else {
      for (const entry of this.registry.listResourceTemplates()) {
        const variables = entry.template.match(uri);
        if (variables && !this.access.hides(scope, entry.summary)) {
          const { uriTemplate, mimeType } = entry.definition;
          target = { name: uriTemplate, mimeType, handler: entry.handler, input: variables, summary: entry.summary };
          break;
        }
      }
    }
    if (!target) throw McpError.resourceNotFound(uri);
    // Authorization before guards run.
    this.access.admit(scope, target.summary, resourceNotFound, uri);
    const { name, handler, input } = target;
    let context: McpResourceContext | undefined;
    const outcome = await this.invoker.invoke(
      scope,
      uri,
      handler,
      input,
      (ledger) => (context = McpResourceContext.open(scope, name, ledger)),
    );
    if (outcome.kind === 'input_required') return outcome.result;
    try {
      if (outcome.kind === 'threw') throw outcome.error;
      const result = resourceResultOf(outcome.value, uri, target.mimeType);
      const hints = this.options.cacheHintsFor('resourcesRead');
      const cached = context?.servedCache;
      // Content only some callers may read must not be reused for others by a shared cache; nor what the server's own
      // cache keeps per caller. A client's copy never outlives the server's (docs/nest-ecosystem.md).
      const cacheScope =
        this.access.restricts(target.summary) || cached?.shared === false ? 'private' : hints.cacheScope;
      const ttlMs = cached ? Math.min(hints.ttlMs, cached.remainingMs) : hints.ttlMs;
      return { ttlMs, cacheScope, ...result } as unknown as JsonObject;
    } catch (error) {
      throw protocolFailure(error, this.logger, `Resource "${uri}"`);
    }
  }
}

/** What `resources/read` answers for a URI nothing serves, or that the caller may not see. */
const resourceNotFound = (uri: string): McpError => McpError.resourceNotFound(uri);
