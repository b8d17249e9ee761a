import type {
  McpCallToolResult,
  McpContentBlock,
  McpGetPromptResult,
  McpPromptMessage,
  McpReadResourceResult,
  McpResourceContents,
} from '../protocol/mcp-wire.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/** Whether a value is one content block (`{ type: 'text' | 'image' | … }`). */
export function isContentBlock(value: unknown): value is McpContentBlock {
  return isJsonObject(value) && typeof value.type === 'string' && CONTENT_TYPES.has(value.type);
}

/** Whether a value is already a full `CallToolResult` (has a `content` array of blocks). */
export function isCallToolResult(value: unknown): value is McpCallToolResult {
  return isJsonObject(value) && Array.isArray(value.content) && value.content.every(isContentBlock);
}

/**
 * Turns what a tool returned into content, when no output schema applies: a string is text, a block or an array
 * of blocks is content, `undefined` is no content, and any other JSON value is sent as `structuredContent` plus its
 * serialized copy (for clients that only read text).
 */
export function toolContentOf(returned: unknown): McpCallToolResult {
  if (returned === undefined) return { content: [] };
  if (typeof returned === 'string') return { content: [{ type: 'text', text: returned }] };
  if (isContentBlock(returned)) return { content: [returned] };
  if (Array.isArray(returned) && returned.length > 0 && returned.every(isContentBlock)) return { content: returned };
  return structuredToolResult(returned);
}

/** A result that carries `structuredContent` and the same JSON as text. */
export function structuredToolResult(value: unknown): McpCallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) ?? 'null' }], structuredContent: value ?? null };
}

/** Turns what a prompt returned into a `GetPromptResult`: a string is one user message. */
export function promptResultOf(returned: unknown, description?: string): McpGetPromptResult {
  if (typeof returned === 'string') {
    return withDescription({ messages: [{ role: 'user', content: { type: 'text', text: returned } }] }, description);
  }
  if (isJsonObject(returned) && Array.isArray(returned.messages)) {
    return returned as unknown as McpGetPromptResult;
  }
  if (Array.isArray(returned)) {
    return withDescription({ messages: returned.map(toPromptMessage) }, description);
  }
  if (isJsonObject(returned) && 'role' in returned) {
    return withDescription({ messages: [toPromptMessage(returned)] }, description);
  }
  throw new TypeError('a prompt must return a string, messages, or { messages }');
}

function toPromptMessage(message: unknown): McpPromptMessage {
  if (typeof message === 'string') return { role: 'user', content: { type: 'text', text: message } };
  if (isJsonObject(message) && (message.role === 'user' || message.role === 'assistant')) {
    const content =
      typeof message.content === 'string' ? { type: 'text' as const, text: message.content } : message.content;
    if (isContentBlock(content)) return { role: message.role, content };
  }
  throw new TypeError('a prompt message must be a string or { role: "user" | "assistant", content }');
}

function withDescription(result: McpGetPromptResult, description?: string): McpGetPromptResult {
  return description === undefined ? result : { description, ...result };
}

/**
 * Turns what a resource handler returned into contents for `uri`: a string is text, bytes are a base64 blob,
 * a contents object (or an array of them, or `{ contents }`) passes through.
 */
export function resourceResultOf(returned: unknown, uri: string, mimeType?: string): McpReadResourceResult {
  const withMime = mimeType ? { mimeType } : {};
  if (typeof returned === 'string') return { contents: [{ uri, ...withMime, text: returned }] };
  if (returned instanceof Uint8Array) {
    const blob = Buffer.from(returned.buffer, returned.byteOffset, returned.byteLength).toString('base64');
    return { contents: [{ uri, ...withMime, blob }] };
  }
  if (isJsonObject(returned) && Array.isArray(returned.contents)) {
    return { ...returned, contents: returned.contents.map(checkContents) } as McpReadResourceResult;
  }
  if (Array.isArray(returned)) return { contents: returned.map(checkContents) };
  if (isJsonObject(returned)) return { contents: [checkContents({ uri, ...withMime, ...returned })] };
  throw new TypeError('a resource must return a string, bytes, contents, or { contents }');
}

function checkContents(value: unknown): McpResourceContents {
  if (
    isJsonObject(value) &&
    typeof value.uri === 'string' &&
    (typeof value.text === 'string' || typeof value.blob === 'string')
  ) {
    return value as unknown as McpResourceContents;
  }
  throw new TypeError('resource contents need a uri and either text or blob');
}
