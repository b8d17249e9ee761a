import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { McpCall } from '../app/mcp.call.js';
import type { Playground } from '../app/playground.js';
import { APP_MIME_TYPE, CLIENT_INFO } from '../protocol/protocol.constants.js';
import type { FinalResult, Tool } from '../protocol/wire.types.js';

/** The sandbox proxy the endpoint serves (`McpPlaygroundPages`): an opaque origin, never the page's. */
const SANDBOX_QUERY = 'mcp-app-sandbox';

interface ViewContent {
  text?: string;
  mimeType?: string;
  _meta?: { ui?: { csp?: Record<string, string[]>; permissions?: Record<string, unknown> } };
}

/**
 * A tool's MCP App view (ext-apps spec 2026-01-26), hosted by the page with the official `AppBridge`: the view's HTML
 * (`resources/read` of its `ui://` URI) runs in the sandbox proxy, two frames down; the bridge sends it the call's
 * arguments and, when the call ends, its result. The view's own requests (tool calls, reads) are made by the page's
 * client — so they show in the raw JSON-RPC panel — and only for tools visible to apps.
 */
export function AppView({
  playground,
  tool,
  uri,
  args,
  call,
}: {
  playground: Playground;
  tool: Tool;
  uri: string;
  args: Record<string, unknown>;
  call: McpCall;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [status, setStatus] = useState('loading the view');
  const bridgeRef = useRef<Promise<AppBridge | undefined>>(undefined);

  useEffect(() => {
    const outer = frame.current!;
    let bridge: AppBridge | undefined;
    const ready = (async () => {
      const read = await playground.client.request<{ contents: ViewContent[] }>('resources/read', { uri });
      const [content] = read.contents;
      if (read.contents.length !== 1 || content?.mimeType !== APP_MIME_TYPE || typeof content.text !== 'string') {
        throw new Error(`${uri} is not an MCP App view`);
      }
      bridge = new AppBridge(
        null,
        CLIENT_INFO,
        { serverTools: {}, serverResources: {}, openLinks: {}, logging: {} },
        {
          hostContext: {
            theme: 'light',
            displayMode: 'inline',
            platform: 'web',
            locale: navigator.language,
            toolInfo: { tool: tool as never },
          },
        },
      );
      bridge.oncalltool = async (params) => {
        const { catalog } = playground.connection.value as { catalog?: { tools: Tool[] } };
        const target = catalog?.tools.find((candidate) => candidate.name === params.name);
        const visibility = target?._meta?.ui?.visibility ?? ['model', 'app'];
        // ext-apps spec, "Visibility": a view may call only tools visible to apps.
        if (!target || !visibility.includes('app')) throw new Error(`The view may not call ${params.name}`);
        return (await playground.client.request('tools/call', {
          name: params.name,
          arguments: params.arguments ?? {},
        })) as never;
      };
      bridge.onreadresource = async (params) =>
        (await playground.client.request('resources/read', { uri: params.uri })) as never;
      bridge.onopenlink = async ({ url }) => {
        if (/^https?:\/\//i.test(url)) window.open(url, '_blank', 'noopener,noreferrer');
        return {};
      };
      bridge.onmessage = async () => ({});
      bridge.onsizechange = ({ height }) => {
        if (typeof height === 'number' && height > 0) outer.style.height = `${Math.ceil(Math.min(height, 900))}px`;
      };
      const sandboxReady = new Promise<void>((resolve) => (bridge!.onsandboxready = () => resolve()));
      const initialized = new Promise<void>((resolve) => (bridge!.oninitialized = () => resolve()));
      await bridge.connect(new PostMessageTransport(outer.contentWindow!, outer.contentWindow!));
      outer.src = `${location.pathname}?${SANDBOX_QUERY}`;
      await sandboxReady;
      await bridge.sendSandboxResourceReady({
        html: content.text,
        csp: content._meta?.ui?.csp,
        permissions: content._meta?.ui?.permissions,
      } as never);
      await initialized;
      setStatus('');
      await bridge.sendToolInput({ arguments: args });
      return bridge;
    })().catch((error: Error) => {
      setStatus(error.message);
      return undefined;
    });
    bridgeRef.current = ready;
    return () => {
      void ready.then((connected) => connected?.teardownResource({}).catch(() => undefined));
    };
  }, [call]);

  // When the call ends, the view gets its result.
  useEffect(
    () =>
      call.state.subscribe((state) => {
        if (state.phase === 'done' && state.result)
          void bridgeRef.current?.then((bridge) => bridge?.sendToolResult(state.result as FinalResult as never));
      }),
    [call],
  );

  return (
    <section class="app-view" data-testid="app-view">
      <h4>
        MCP App view <code>{uri}</code>
      </h4>
      {status && <p class="hint">{status}</p>}
      <iframe ref={frame} title={`${tool.name} view`} sandbox="allow-scripts" data-testid="app-frame" />
    </section>
  );
}
