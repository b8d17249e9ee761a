/*
 * Wire shapes of MCP 2026-07-28 that handlers and options touch (schema.ts of the spec). Only the server's view:
 * what it sends, and what it reads from requests.
 */

/** An icon for an implementation, tool, prompt or resource. */
export interface McpIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** Name and version of an implementation (`serverInfo`, `clientInfo`). */
export interface McpImplementation {
  name: string;
  version: string;
  /** Display name. */
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: McpIcon[];
}

/** Optional annotations on content and resources. */
export interface McpAnnotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

/** `_meta` of any object. */
export type McpMeta = Record<string, unknown>;

/** Plain text. */
export interface McpTextContent {
  type: 'text';
  text: string;
  annotations?: McpAnnotations;
  _meta?: McpMeta;
}

/** Base64 image. */
export interface McpImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: McpAnnotations;
  _meta?: McpMeta;
}

/** Base64 audio. */
export interface McpAudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: McpAnnotations;
  _meta?: McpMeta;
}

/** A link to a resource the client may read. */
export interface McpResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: McpIcon[];
  annotations?: McpAnnotations;
  _meta?: McpMeta;
}

/** Text contents of a resource. */
export interface McpTextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: McpMeta;
}

/** Binary (base64) contents of a resource. */
export interface McpBlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: McpMeta;
}

/** Contents of a resource. */
export type McpResourceContents = McpTextResourceContents | McpBlobResourceContents;

/** A resource embedded in content. */
export interface McpEmbeddedResource {
  type: 'resource';
  resource: McpResourceContents;
  annotations?: McpAnnotations;
  _meta?: McpMeta;
}

/** Any content block of a tool result or prompt message. */
export type McpContentBlock =
  | McpTextContent
  | McpImageContent
  | McpAudioContent
  | McpResourceLink
  | McpEmbeddedResource;

/** Hints about a tool's behaviour (untrusted by clients). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool as listed by `tools/list`. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  icons?: McpIcon[];
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: McpToolAnnotations;
  _meta?: McpMeta;
}

/** The result of `tools/call`. */
export interface McpCallToolResult {
  content: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: McpMeta;
}

/** One argument of a prompt. */
export interface McpPromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt as listed by `prompts/list`. */
export interface McpPromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments?: McpPromptArgument[];
  icons?: McpIcon[];
  _meta?: McpMeta;
}

/** One message of a prompt. */
export interface McpPromptMessage {
  role: 'user' | 'assistant';
  content: McpContentBlock;
}

/** The result of `prompts/get`. */
export interface McpGetPromptResult {
  description?: string;
  messages: McpPromptMessage[];
  _meta?: McpMeta;
}

/** A resource as listed by `resources/list`. */
export interface McpResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: McpAnnotations;
  size?: number;
  icons?: McpIcon[];
  _meta?: McpMeta;
}

/** A resource template as listed by `resources/templates/list`. */
export interface McpResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: McpAnnotations;
  icons?: McpIcon[];
  _meta?: McpMeta;
}

/** The result of `resources/read`. */
export interface McpReadResourceResult {
  contents: McpResourceContents[];
  _meta?: McpMeta;
}

/** The result of `completion/complete`. */
export interface McpCompletionResult {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** Capabilities a client declares on a request (`_meta` `clientCapabilities`). */
export interface McpClientCapabilities {
  experimental?: Record<string, unknown>;
  roots?: Record<string, unknown>;
  sampling?: { context?: Record<string, unknown>; tools?: Record<string, unknown> };
  elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The eight log levels, lowest first (RFC 5424 order). */
export const MCP_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** A log level of `notifications/message`. */
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

/** Cache scope of a cacheable result. */
export type McpCacheScope = 'public' | 'private';

/** Cache hints (`ttlMs`, `cacheScope`) of a cacheable result. */
export interface McpCacheHints {
  ttlMs: number;
  cacheScope: McpCacheScope;
}
