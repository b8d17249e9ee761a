import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import {
  PLAYGROUND_PAGE_SCRIPT,
  PLAYGROUND_PAGE_STYLE,
  PLAYGROUND_SANDBOX_SCRIPT,
} from './playground-assets.generated.js';
import { hashSource, pageContentSecurityPolicy, sandboxContentSecurityPolicy } from './playground-csp.util.js';
import type { PlaygroundDocument, PlaygroundPageConfig } from './playground-document.interface.js';
import { PLAYGROUND_CONFIG_ELEMENT_ID, PLAYGROUND_SANDBOX_QUERY } from './playground.constants.js';

/** Headers of both documents: never cached, never sniffed, no referrer (the sign-in's `code` is in the page's URL). */
const COMMON_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The playground's two documents (docs/playground.md): the page, an MCP client of this endpoint bundled at build time
 * (scripts/build-playground.mjs) and inlined, under a policy that admits only its own script and style by hash; and
 * the sandbox proxy in which it renders MCP App views. Both are built once, at startup: they hold nothing of the
 * server but the `playground` option, so a browser's navigation may get them before any bearer check — everything
 * else the page learns it asks the endpoint, with the user's token, like any client.
 */
@Injectable()
export class McpPlaygroundPages {
  /** Whether the playground is on (`playground` option, `NODE_ENV`). */
  readonly enabled: boolean;
  private readonly page?: PlaygroundDocument;
  private readonly sandbox?: PlaygroundDocument;

  constructor(options: McpResolvedOptions) {
    this.enabled = options.playground !== undefined;
    if (!options.playground) return;
    const config: PlaygroundPageConfig = { ...options.playground };
    // Signing in fetches the authorization servers' metadata and token endpoints from the page.
    const connectOrigins = [
      ...new Set((options.auth?.authorizationServers ?? []).map((issuer) => new URL(issuer).origin)),
    ];
    this.page = pageDocument(config, connectOrigins);
    this.sandbox = sandboxDocument();
  }

  /** The document a browser's GET of `url` (path and query) asks for: the sandbox proxy, or else the page. */
  documentFor(url: string | undefined): PlaygroundDocument | undefined {
    const query = new URLSearchParams(url?.split('?', 2)[1] ?? '');
    return query.has(PLAYGROUND_SANDBOX_QUERY) ? this.sandbox : this.page;
  }
}

function pageDocument(config: PlaygroundPageConfig, connectOrigins: readonly string[]): PlaygroundDocument {
  // A JSON data block is not run (no CSP source needed); `<` escaped so that nothing in it can close the element.
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  const body = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>MCP playground</title>',
    '<link rel="icon" href="data:,">',
    `<style>${PLAYGROUND_PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    `<script type="application/json" id="${PLAYGROUND_CONFIG_ELEMENT_ID}">${json}</script>`,
    '<div id="app"></div>',
    `<script>${PLAYGROUND_PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
  const policy = pageContentSecurityPolicy({
    scriptHash: hashSource(PLAYGROUND_PAGE_SCRIPT),
    styleHash: hashSource(PLAYGROUND_PAGE_STYLE),
    connectOrigins,
  });
  return {
    body,
    headers: {
      ...COMMON_HEADERS,
      'Content-Security-Policy': policy,
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    },
  };
}

function sandboxDocument(): PlaygroundDocument {
  const body = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>MCP App sandbox</title>',
    '<style>html, body { margin: 0; height: 100%; } iframe { display: block; width: 100%; height: 100%; border: 0; }</style>',
    '</head>',
    '<body>',
    `<script>${PLAYGROUND_SANDBOX_SCRIPT}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
  return { body, headers: { ...COMMON_HEADERS, 'Content-Security-Policy': sandboxContentSecurityPolicy() } };
}
