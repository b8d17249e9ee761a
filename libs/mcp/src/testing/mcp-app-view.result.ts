import { MCP_APP_MIME_TYPE } from '../apps/apps.constants.js';
import type { McpReadResourceResult, McpResourceContents } from '../protocol/mcp-wire.interface.js';
import { type McpCallRecord, McpTestingResult } from './mcp-testing.result.js';

/**
 * The result of `readView`: an MCP Apps view as a host reads it, checked to be one (exactly one content item, with
 * the MCP Apps MIME type and the requested URI, holding text or a base64 blob).
 */
export class McpAppViewResult extends McpTestingResult<McpReadResourceResult> {
  /** The one content item. */
  readonly content: McpResourceContents;

  private constructor(raw: McpReadResourceResult, record: McpCallRecord, uri: string) {
    super(raw, record);
    const contents = raw.contents ?? [];
    if (contents.length !== 1)
      throw new Error(`The view ${uri} has ${contents.length} content items; an MCP Apps view has exactly one`);
    const [content] = contents;
    if (content.mimeType !== MCP_APP_MIME_TYPE) {
      throw new Error(
        `The view ${uri} has MIME type ${String(content.mimeType)}; an MCP Apps view has ${MCP_APP_MIME_TYPE}`,
      );
    }
    if (content.uri !== uri) throw new Error(`The view ${uri} answered with a content item for ${content.uri}`);
    this.content = content;
  }

  /** @internal */
  static of(raw: McpReadResourceResult, record: McpCallRecord, uri: string): McpAppViewResult {
    return new McpAppViewResult(raw, record, uri);
  }

  /** The HTML document (decoded from base64 when the view was sent as a blob). */
  get html(): string {
    const content = this.content as { text?: string; blob?: string };
    return content.text ?? Buffer.from(content.blob ?? '', 'base64').toString('utf8');
  }

  /** The content item's `_meta.ui` (CSP, permissions, domain, prefersBorder), as hosts read it; undefined if none. */
  get ui(): Record<string, unknown> | undefined {
    return (this.content._meta as { ui?: Record<string, unknown> } | undefined)?.ui;
  }

  /** The cache lifetime the server gave the view (`ttlMs`). */
  get ttlMs(): number | undefined {
    return (this.raw as { ttlMs?: number }).ttlMs;
  }
}
