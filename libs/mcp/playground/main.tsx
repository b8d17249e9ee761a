/**
 * The playground page (docs/playground.md): an MCP client of the endpoint that served it, in the browser. Bundled at
 * build time by scripts/build-playground.mjs and inlined into the page by `McpPlaygroundPages`.
 */
import { render } from 'preact';
import { completeSignIn } from './auth/oauth.flow.js';
import { Playground, type PageConfig } from './app/playground.js';
import { PlaygroundApp } from './views/playground-app.js';
import './playground.css';

const CONFIG_ELEMENT_ID = 'mcp-playground-config';

async function main(): Promise<void> {
  const config = JSON.parse(document.getElementById(CONFIG_ELEMENT_ID)?.textContent ?? '{}') as PageConfig;
  const playground = new Playground(location.pathname, config);
  // For the tests and the curious: the page's state, read-only by convention.
  (window as unknown as { mcpPlayground: Playground }).mcpPlayground = playground;
  render(<PlaygroundApp playground={playground} />, document.getElementById('app')!);
  try {
    const token = await completeSignIn();
    if (token) playground.token.set(token);
  } catch (error) {
    playground.connection.set({ state: 'failed', problem: (error as Error).message });
    return;
  }
  await playground.refresh();
}

void main();
