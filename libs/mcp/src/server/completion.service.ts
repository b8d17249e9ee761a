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

const MAX_VALUES = 100;

/** `completion/complete` for prompt arguments and resource template variables. */
@Injectable()
export class McpCompletionService {
  private readonly logger = new Logger('McpCompletion');

  constructor(private readonly registry: McpRegistry) {}

  async complete(scope: McpRequestScope): Promise<JsonObject> {
    const ref = optionalObject(scope.params, 'ref');
    const argument = optionalObject(scope.params, 'argument');
    const argumentName = requireString(argument, 'name');
    const value = argument.value;
    if (typeof value !== 'string') throw McpError.invalidParams('Invalid params: "argument.value" must be a string');
    const context = optionalObject(scope.params, 'context');
    const resolved = optionalObject(context, 'arguments') as Record<string, string>;

    const provider = this.findProvider(ref, argumentName);
    if (!provider) return { completion: { values: [] } };
    try {
      return { completion: normalize(await provider(value, { arguments: resolved })) } as unknown as JsonObject;
    } catch (error) {
      throw protocolFailure(error, this.logger, `Completion of "${argumentName}"`);
    }
  }

  private findProvider(ref: JsonObject, argumentName: string): BoundCompletion | undefined {
    if (ref.type === 'ref/prompt') {
      const name = requireString(ref, 'name');
      const prompt = this.registry.getPrompt(name);
      if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${name}`, { name });
      if (!prompt.definition.arguments?.some((argument) => argument.name === argumentName)) {
        throw McpError.invalidParams(`Prompt "${name}" has no argument "${argumentName}"`);
      }
      return prompt.completions.get(argumentName);
    }
    if (ref.type === 'ref/resource') {
      const uri = requireString(ref, 'uri');
      const template = this.registry.getResourceTemplate(uri);
      if (template) {
        if (!template.template.variableNames.includes(argumentName)) {
          throw McpError.invalidParams(`Resource template "${uri}" has no variable "${argumentName}"`);
        }
        return template.completions.get(argumentName);
      }
      if (this.registry.getResource(uri)) return undefined;
      throw McpError.invalidParams('Resource not found', { uri });
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
