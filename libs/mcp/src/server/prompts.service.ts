import { Injectable, Logger } from '@nestjs/common';
import { McpPromptContext } from '../context/mcp-prompt.context.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { protocolFailure } from './exception.mapper.js';
import { McpHandlerInvoker } from './handler.invoker.js';
import { optionalObject, requireString } from './params.util.js';
import { promptResultOf } from './result-shapers.js';
import { McpAccessPolicy } from './access.policy.js';
import { echoed } from '../protocol/echo.util.js';

/** `prompts/get`; `McpListsService` answers `prompts/list`. */
@Injectable()
export class McpPromptsService {
  private readonly logger = new Logger('McpPrompts');

  constructor(
    private readonly registry: McpRegistry,
    private readonly invoker: McpHandlerInvoker,
    private readonly access: McpAccessPolicy,
  ) {}

  async get(scope: McpRequestScope): Promise<JsonObject> {
    const name = requireString(scope.params, 'name');
    // Unknown here: with a shared registry state, another replica may have just registered it.
    const entry = this.registry.getPrompt(name) ?? (await this.registry.catchUp(), this.registry.getPrompt(name));
    if (!entry) throw unknownPrompt(name);
    // Authorization before the arguments are judged or guards run.
    this.access.admit(scope, entry.summary, unknownPrompt, name);
    const args = optionalObject(scope.params, 'arguments');
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== 'string')
        throw McpError.invalidParams(`Invalid params: prompt argument "${echoed(key)}" must be a string`);
    }
    const missing = entry.requiredArguments.filter(
      (argument) => !Object.hasOwn(args, argument) || args[argument] === undefined,
    );
    if (missing.length > 0) {
      throw McpError.invalidParams(`Missing required arguments for prompt "${name}": ${missing.join(', ')}`, {
        missing,
      });
    }
    const outcome = await this.invoker.invoke(scope, name, entry.handler, args, (ledger) =>
      McpPromptContext.open(scope, name, ledger),
    );
    if (outcome.kind === 'input_required') return outcome.result;
    try {
      if (outcome.kind === 'threw') throw outcome.error;
      return promptResultOf(outcome.value, entry.definition.description) as unknown as JsonObject;
    } catch (error) {
      throw protocolFailure(error, this.logger, `Prompt "${name}"`);
    }
  }
}

/** What `prompts/get` answers for a prompt that does not exist, or that the caller may not see. */
function unknownPrompt(name: string): McpError {
  const shown = echoed(name);
  return McpError.invalidParams(`Unknown prompt: ${shown}`, { name: shown });
}
