/*
 * The view side of the release board (browser code, bundled into the board's HTML): the official ext-apps `App`.
 */
import { App } from '@modelcontextprotocol/ext-apps';

const board = document.getElementById('board')!;

// #region docs:view-app
const app = new App({ name: 'release-board', version: '1.0.0' }, {});

// The tool's arguments, as soon as the host calls it (untrusted: render them as text).
app.addEventListener('toolinput', ({ arguments: args }) => {
  board.textContent = `Releasing ${String(args?.service)}…`;
});

// The tool's result, when the call ends: structuredContent is the view's data.
app.addEventListener('toolresult', async (result) => {
  const { service } = result.structuredContent as { service: string; version: string };
  // Call a tool of the server back through the host (here an app-only one).
  const status = await app.callServerTool({ name: 'release_status', arguments: { service } });
  board.textContent = JSON.stringify(status.structuredContent);
});

app.onteardown = async () => ({});

await app.connect(); // the ui/initialize handshake with the host, over postMessage
// #endregion docs:view-app
