import { SetMetadata } from '@nestjs/common';
import type { McpAppViewOptions } from './mcp-app-options.interface.js';
import { MCP_APP_VIEW_METADATA } from './mcp-metadata.constants.js';

/** What `@McpAppView` stores: the view's URI and its options. */
export interface McpAppViewMetadata extends McpAppViewOptions {
  uri: string;
}

/**
 * Serves a provider method's HTML as an MCP Apps view (`io.modelcontextprotocol/ui`): a resource at a `ui://` URI
 * with MIME type `text/html;profile=mcp-app`, which hosts render in a sandboxed frame for tools that name it
 * (`@McpTool({ app: { view } })`). The method returns one self-contained HTML document, as a string or bytes; its
 * `resources/read` result has exactly that one content item, with `_meta.ui` (CSP, permissions, domain,
 * prefersBorder) on it and a long `ttlMs`. The view is listed in `resources/list` like any resource, with the same
 * `_meta.ui`. `@McpScopes`, guards and interceptors apply as to `@McpResource`.
 *
 * @example
 * ```ts
 * @McpAppView('ui://deploy/board', { title: 'Deployment board', prefersBorder: true })
 * board() { return this.html; }
 * ```
 */
export const McpAppView = (uri: string, options: McpAppViewOptions = {}): MethodDecorator =>
  SetMetadata(MCP_APP_VIEW_METADATA, { ...options, uri } satisfies McpAppViewMetadata);
