/**
 * The sandbox proxy of the playground's MCP App views (ext-apps spec 2026-01-26, "Sandbox proxy"). The endpoint serves
 * it under `sandbox allow-scripts`, so it runs in an opaque origin, never the page's. It loads the view's HTML into
 * an inner frame under a policy built from the view's `_meta.ui.csp`, and relays every other message between the page
 * (its parent) and the view, making no request of its own.
 */
const PREFIX = 'ui/notifications/sandbox-';

interface ViewCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** Origins from `_meta.ui.csp`, kept only when they look like origins (a value must never add a directive). */
const sources = (list: string[] | undefined) =>
  (list ?? []).filter((source) => /^https?:\/\/[a-z0-9.*:[\]-]+$/i.test(source)).join(' ');

/** The view's policy: inline code and its declared origins; no network unless declared (ext-apps, "Security"). */
function policyOf(csp: ViewCsp = {}): string {
  const resources = sources(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: ${resources}`,
    `font-src data: ${resources}`,
    `media-src data: ${resources}`,
    `connect-src ${sources(csp.connectDomains) || "'none'"}`,
    `frame-src ${sources(csp.frameDomains) || "'none'"}`,
    `base-uri ${sources(csp.baseUriDomains) || "'none'"}`,
    "object-src 'none'",
  ].join('; ');
}

let inner: HTMLIFrameElement | undefined;

function load({ html, csp }: { html?: string; csp?: ViewCsp }): void {
  const escaped = policyOf(csp).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escaped}">`;
  const text = String(html ?? '');
  inner?.remove();
  inner = document.createElement('iframe');
  inner.setAttribute('sandbox', 'allow-scripts');
  inner.srcdoc = /<head[^>]*>/i.test(text) ? text.replace(/<head[^>]*>/i, (head) => head + meta) : meta + text;
  document.body.append(inner);
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = event.data as { method?: unknown; params?: Record<string, unknown> } | undefined;
  if (event.source === window.parent) {
    if (typeof message?.method === 'string' && message.method.startsWith(PREFIX)) {
      if (message.method === `${PREFIX}resource-ready`)
        load((message.params ?? {}) as { html?: string; csp?: ViewCsp });
      return;
    }
    inner?.contentWindow?.postMessage(message, '*');
  } else if (inner && event.source === inner.contentWindow) {
    window.parent.postMessage(message, '*');
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: `${PREFIX}proxy-ready`, params: {} }, '*');
