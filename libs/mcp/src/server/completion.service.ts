import { Injectable, Logger } from '@nestjs/common';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { BoundCompletion } from '../discovery/registry-entries.interface.js';
import type { McpCompletionReturn } from '../decorators/completion-provider.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpCompletionResult } from '../protocol/mcp-wire.interface.js';
import { protocolFailure } from './exception.mapper.js';
import { optionalObject, requireString } from './params.util.js';
import { McpAccessPolicy } from './access.policy.js';
import type { McpCaller } from '../protocol/mcp-caller.interface.js';
import { echoed } from '../protocol/echo.util.js';

const MAX_VALUES = 100;

/**
 * `completion/complete` for prompt arguments and resource template variables. A prompt or template the caller may not
 * see (its scopes, the `visibility` hook: what lists show) is answered exactly as one that does not exist.
 */
@Injectable()
export class McpCompletionService {
  private readonly logger = new Logger('McpCompletion');

  constructor(
    private readonly registry: McpRegistry,
    private readonly access: McpAccessPolicy,
  ) {}

  async complete(scope: McpRequestScope): Promise<JsonObject> {
    const ref = optionalObject(scope.params, 'ref');
    const argument = optionalObject(scope.params, 'argument');
    const argumentName = requireString(argument, 'name');
    const value = argument.value;
    if (typeof value !== 'string') throw McpError.invalidParams('Invalid params: "argument.value" must be a string');
    const context = optionalObject(scope.params, 'context');
    const resolved = optionalObject(context, 'arguments') as Record<string, string>;

    const provider = this.findProvider(ref, argumentName, this.access.callerOf(scope));
    if (!provider) return { completion: { values: [] } };
    try {
      return { completion: normalize(await provider(value, { arguments: resolved })) } as unknown as JsonObject;
    } catch (error) {
      throw protocolFailure(error, this.logger, `Completion of "${argumentName}"`);
    }
  }

  private findProvider(ref: JsonObject, argumentName: string, caller: McpCaller): BoundCompletion | undefined {
    if (ref.type === 'ref/prompt') {
      const name = requireString(ref, 'name');
      const prompt = this.registry.getPrompt(name);
      if (!prompt || !this.access.isVisible(prompt.summary, caller))
        throw McpError.invalidParams(`Unknown prompt: ${echoed(name)}`, { name: echoed(name) });
      if (!prompt.definition.arguments?.some((argument) => argument.name === argumentName)) {
        throw McpError.invalidParams(`Prompt "${name}" has no argument "${echoed(argumentName)}"`);
      }
      return prompt.completions.get(argumentName);
    }
    if (ref.type === 'ref/resource') {
      const uri = requireString(ref, 'uri');
      const template = this.registry.getResourceTemplate(uri);
      if (template && this.access.isVisible(template.summary, caller)) {
        if (!template.template.variableNames.includes(argumentName)) {
          throw McpError.invalidParams(`Resource template "${uri}" has no variable "${echoed(argumentName)}"`);
        }
        return template.completions.get(argumentName);
      }
      const resource = this.registry.getResource(uri);
      if (resource && this.access.isVisible(resource.summary, caller)) return undefined;
      throw McpError.resourceNotFound(uri);
    }
    throw McpError.invalidParams('Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"');
  }
}

function normalize(returned: McpCompletionReturn): McpCompletionResult {
  const result = Array.isArray(returned) ? { values: returned } : returned;
  if (!result || !Array.isArray(result.values) || !result.values.every((value) => typeof value === 'string')) {
    throw new TypeError('a completion provider must return strings or { values: string[] }');
  }
  if (result.values.length <= MAX_VALUES) return result;
  return { values: result.values.slice(0, MAX_VALUES), total: result.total ?? result.values.length, hasMore: true };
}
