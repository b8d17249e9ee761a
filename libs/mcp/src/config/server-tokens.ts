import { Inject } from '@nestjs/common';

/** What one named server provides under a token of its own (`McpModule.forRoot({ name, … })`). */
export type McpServerPart =
  | 'registry'
  | 'publisher'
  | 'runner'
  | 'dispatcher'
  | 'wire'
  | 'options'
  | 'extras'
  | 'stdio';

/** @internal The token under which the server called `name` provides `part`. */
export function mcpServerToken(name: string, part: McpServerPart): string {
  return `nest-mcp:server:${name}:${part}`;
}

/**
 * The token of the `McpRegistry` of the server called `name`, for apps with several servers (where the class token
 * alone names whichever server Nest finds first).
 *
 * @example `{ provide: AdminTools, inject: [getMcpRegistryToken('admin')], useFactory: (registry) => … }`
 */
export function getMcpRegistryToken(name: string): string {
  return mcpServerToken(name, 'registry');
}

/** The token of the `McpPublisher` of the server called `name` (see `getMcpRegistryToken`). */
export function getMcpPublisherToken(name: string): string {
  return mcpServerToken(name, 'publisher');
}

/**
 * Injects the `McpRegistry` of the server called `name`.
 *
 * @example `constructor(@InjectMcpRegistry('admin') private readonly registry: McpRegistry) {}`
 */
export const InjectMcpRegistry = (name: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpRegistryToken(name));

/**
 * Injects the `McpPublisher` of the server called `name`.
 *
 * @example `constructor(@InjectMcpPublisher('admin') private readonly publisher: McpPublisher) {}`
 */
export const InjectMcpPublisher = (name: string): ParameterDecorator & PropertyDecorator =>
  Inject(getMcpPublisherToken(name));
