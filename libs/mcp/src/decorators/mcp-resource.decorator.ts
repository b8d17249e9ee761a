import { SetMetadata } from '@nestjs/common';
import type { McpAnnotations, McpIcon, McpMeta } from '../protocol/mcp-wire.interface.js';
import { MCP_RESOURCE_METADATA } from './mcp-metadata.constants.js';

/** Options of `@McpResource`. */
export interface McpResourceOptions {
  /** The resource URI (RFC 3986), unique on this server. */
  uri: string;
  /** Name for listings; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes before any base64 encoding, if known. */
  size?: number;
  annotations?: McpAnnotations;
  icons?: McpIcon[];
  _meta?: McpMeta;
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
export const McpResource = (options: McpResourceOptions): MethodDecorator => SetMetadata(MCP_RESOURCE_METADATA, options);
