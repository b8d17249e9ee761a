import { createHash } from 'node:crypto';

/** A CSP hash source (`'sha256-…'`) of an inline script or style, exactly as it is inlined. */
export function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** What the page's policy lets through besides its own inline script and style. */
export interface PagePolicySources {
  readonly scriptHash: string;
  readonly styleHash: string;
  /** Origins the page may fetch from besides its own: the authorization servers, for signing in. */
  readonly connectOrigins: readonly string[];
}

/**
 * The page's Content-Security-Policy: nothing but its one inline script and one inline style (by hash), requests to
 * the endpoint's own origin and to the authorization servers, and frames from its own origin (the sandbox proxy of MCP
 * App views). No `unsafe-inline`, no `eval`, no other origin; the page may not be framed, post forms or set a base.
 */
export function pageContentSecurityPolicy({ scriptHash, styleHash, connectOrigins }: PagePolicySources): string {
  return [
    "default-src 'none'",
    `script-src ${scriptHash}`,
    `style-src ${styleHash}`,
    "img-src 'self' data:",
    ['connect-src', "'self'", ...connectOrigins].join(' '),
    "frame-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The sandbox proxy's policy. `sandbox allow-scripts` gives the document an opaque origin, unlike the page's: a view
 * can reach neither the page, nor its token, nor the endpoint with the page's cookies (ext-apps spec 2026-01-26,
 * "Sandbox proxy"). The rest is the widest policy a view may declare (inline code, any http(s) origin it lists in
 * `_meta.ui.csp`): the view's frame inherits it and adds the policy built from its own `_meta.ui.csp`, and a document
 * obeys both, so the view gets exactly what it declared. Only the page may frame the proxy.
 */
export function sandboxContentSecurityPolicy(): string {
  const web = 'http: https:';
  return [
    'sandbox allow-scripts',
    "default-src 'none'",
    `script-src 'unsafe-inline' ${web}`,
    `style-src 'unsafe-inline' ${web}`,
    `img-src data: blob: ${web}`,
    `font-src data: ${web}`,
    `media-src data: blob: ${web}`,
    `connect-src ${web}`,
    `frame-src ${web}`,
    "form-action 'none'",
    "object-src 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}
