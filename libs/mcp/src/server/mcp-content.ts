import type {
  McpAnnotations,
  McpAudioContent,
  McpCallToolResult,
  McpEmbeddedResource,
  McpImageContent,
  McpResourceContents,
  McpResourceLink,
  McpTextContent,
} from '../protocol/mcp-wire.interface.js';

const toBase64 = (data: string | Uint8Array): string =>
  typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

/**
 * Builders for content blocks, for handlers that return more than a string.
 *
 * @example
 * ```ts
 * return [McpContent.text('Here is the chart'), McpContent.image(png, 'image/png')];
 * ```
 */
export const McpContent = {
  /** A text block. */
  text(text: string, annotations?: McpAnnotations): McpTextContent {
    return annotations ? { type: 'text', text, annotations } : { type: 'text', text };
  },
  /** An image block; bytes are base64-encoded, a string is taken as base64 already. */
  image(data: string | Uint8Array, mimeType: string, annotations?: McpAnnotations): McpImageContent {
    return { type: 'image', data: toBase64(data), mimeType, ...(annotations && { annotations }) };
  },
  /** An audio block; bytes are base64-encoded, a string is taken as base64 already. */
  audio(data: string | Uint8Array, mimeType: string, annotations?: McpAnnotations): McpAudioContent {
    return { type: 'audio', data: toBase64(data), mimeType, ...(annotations && { annotations }) };
  },
  /** A link to a resource the client may read later. */
  resourceLink(link: Omit<McpResourceLink, 'type'>): McpResourceLink {
    return { type: 'resource_link', ...link };
  },
  /** A resource embedded in the content, as text or (for bytes) a base64 blob. */
  embedded(uri: string, contents: string | Uint8Array, mimeType?: string): McpEmbeddedResource {
    const resource: McpResourceContents =
      typeof contents === 'string'
        ? { uri, text: contents, ...(mimeType && { mimeType }) }
        : { uri, blob: toBase64(contents), ...(mimeType && { mimeType }) };
    return { type: 'resource', resource };
  },
  /** A tool result that reports a failure the model can act on (`isError: true`). */
  error(message: string): McpCallToolResult {
    return { content: [{ type: 'text', text: message }], isError: true };
  },
} as const;
