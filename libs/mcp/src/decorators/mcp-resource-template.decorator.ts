import { SetMetadata } from '@nestjs/common';
import type { McpResourceTemplateDefinition } from '../protocol/mcp-wire.interface.js';
import type { McpCompletionProvider } from './completion-provider.interface.js';
import { MCP_RESOURCE_TEMPLATE_METADATA } from './mcp-metadata.constants.js';

/** Options of `@McpResourceTemplate`: the template as `resources/templates/list` shows it, and its completions. */
export interface McpResourceTemplateOptions extends Omit<McpResourceTemplateDefinition, 'name'> {
  /** An RFC 6570 URI template, e.g. `users://{id}/profile`. */
  uriTemplate: string;
  /** Name for listings; defaults to the method name. */
  name?: string;
  /** Completion providers per template variable, for `completion/complete` with a `ref/resource`. */
  complete?: Record<string, McpCompletionProvider>;
}

/**
 * Exposes a provider method as a family of resources addressed by a URI template. The matched variables are
 * handed to the method through `@McpArgs()`.
 *
 * @example
 * ```ts
 * @McpResourceTemplate({ uriTemplate: 'users://{id}/profile', mimeType: 'application/json' })
 * profile(@McpArgs('id') id: string) { return JSON.stringify(this.users.get(id)); }
 * ```
 */
export const McpResourceTemplate = (options: McpResourceTemplateOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_TEMPLATE_METADATA, options);
