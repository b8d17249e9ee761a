import { SetMetadata } from '@nestjs/common';
import type { McpResourceDefinition } from '../protocol/mcp-wire.interface.js';
import { MCP_RESOURCE_METADATA } from './mcp-metadata.constants.js';

/** Options of `@McpResource`: the resource as `resources/list` shows it. */
export interface McpResourceOptions extends Omit<McpResourceDefinition, 'name'> {
  /** The resource URI (RFC 3986), unique on this server. */
  uri: string;
  /** Name for listings; defaults to the method name. */
  name?: string;
  /** Size in bytes before any base64 encoding, if known. */
  size?: number;
}

/**
 * Exposes a provider method as a static MCP resource. The method returns a string (text), a `Buffer` or
 * `Uint8Array` (blob), one contents object, or an array of them.
 *
 * @example
 * ```ts
 * @McpResource({ uri: 'config://app', mimeType: 'application/json' })
 * config() { return JSON.stringify(this.settings); }
 * ```
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_METADATA, options);
