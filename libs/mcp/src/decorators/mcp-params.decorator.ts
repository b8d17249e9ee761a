import type { PipeTransform, Type } from '@nestjs/common';
import { MCP_PARAM_ARGS_METADATA } from './mcp-metadata.constants.js';
import { McpParamType } from './mcp-param-type.enum.js';

type ParamPipe = PipeTransform | Type<PipeTransform>;

function createMcpParamDecorator(type: McpParamType) {
  return (data?: string, ...pipes: ParamPipe[]): ParameterDecorator =>
    (target, key, index) => {
      if (key === undefined) return;
      const existing = Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, target.constructor, key) ?? {};
      // Same layout as Nest's route params (`type:index` → { index, data, pipes }), which ExternalContextCreator reads.
      const metadata = { ...existing, [`${type}:${index}`]: { index, data, pipes } };
      Reflect.defineMetadata(MCP_PARAM_ARGS_METADATA, metadata, target.constructor, key);
    };
}

/**
 * Injects the call's input: the tool arguments (validated and, for a DTO, transformed), the prompt arguments,
 * or the variables of the matched URI template. With a property name, only that property.
 * Pipes given here run after validation.
 *
 * @example `search(@McpArgs() args: SearchDto)` or `profile(@McpArgs('id') id: string)`
 */
export const McpArgs: (property?: string, ...pipes: ParamPipe[]) => ParameterDecorator = createMcpParamDecorator(
  McpParamType.ARGS,
);

/**
 * Injects the context of the call: `McpToolContext`, `McpPromptContext` or `McpResourceContext`.
 * A parameter typed with one of these classes receives it even without the decorator.
 */
export const McpCtx: () => ParameterDecorator = () => createMcpParamDecorator(McpParamType.CONTEXT)();

/** Injects the underlying HTTP request object (Express or Fastify), or `undefined` outside HTTP. */
export const McpHttpRequest: () => ParameterDecorator = () => createMcpParamDecorator(McpParamType.REQUEST)();

/**
 * Injects the authenticated caller: with `auth`, the principal of the verified token (its subject by default);
 * otherwise what the `principal` option returns. `undefined` when the call is anonymous.
 *
 * @example `deploy(@McpArgs() args: DeployDto, @McpPrincipal() user: string | undefined)`
 */
export const McpPrincipal: () => ParameterDecorator = () => createMcpParamDecorator(McpParamType.PRINCIPAL)();

/**
 * Injects the verified access token's content (`McpAccessToken`: subject, scopes, client id, claims) — never the raw
 * bearer string, which stays in the transport. `undefined` when the call carried no token (stdio, a server without
 * `auth`, a task's later rounds).
 *
 * @example `audit(@McpToken() token: McpAccessToken | undefined)`
 */
export const McpToken: () => ParameterDecorator = () => createMcpParamDecorator(McpParamType.ACCESS_TOKEN)();
