// `npm start` on the fresh machine: the demo builds and serves; a tools/list over the 2026-07-28 wire answers.
import { spawn } from 'node:child_process';
const port = 39123;
const child = spawn('npm', ['start'], {
  detached: true,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, PORT: String(port) },
});
const started = Date.now();
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'fresh', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
let ok = false;
while (Date.now() - started < 240_000 && !ok) {
  await new Promise((r) => setTimeout(r, 1000));
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body,
    });
    const text = await answer.text();
    console.log(
      `demo answered ${answer.status} after ${((Date.now() - started) / 1000).toFixed(1)} s: ${text.slice(0, 160)}`,
    );
    ok = answer.status === 200 && text.includes('"tools"');
  } catch {}
}
process.kill(-child.pid, 'SIGTERM');
process.exit(ok ? 0 : 1);
