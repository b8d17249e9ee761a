/*
 * The deployment board: the MCP Apps view of `deploy_release`, running in the host's sandboxed frame. It talks only
 * to the host (the ext-apps `App`, over postMessage): the host hands it the tool's arguments and, when the rollout
 * ends, its result; meanwhile the board polls `deployment_status` and may call `cancel_deployment` — app-only tools
 * the host forwards to the console's MCP server. Bundled into one HTML file by scripts/build-demo-views.mjs.
 */
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';

/** A rollout as `deployment_status` and `cancel_deployment` return it (RolloutDto on the server). */
interface Rollout {
  service: string;
  version: string;
  fromVersion: string;
  status: 'running' | 'succeeded' | 'failed' | 'cancelled';
  steps: string[];
  completed: number;
  message?: string;
}

/** What a tool call answers (the parts the board reads). */
interface ToolResult {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
}

/** How often the board asks for the rollout's status while it runs. */
const POLL_MS = 250;

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const board = element<HTMLElement>('board');
const cancelButton = element<HTMLButtonElement>('cancel');

let service: string | undefined;
let version: string | undefined;
/** The last rollout state shown. */
let shown: Rollout | undefined;
/** Set once the host delivered the call's result (or cancelled it): the board then stops polling. */
let finished = false;
let pollTimer: ReturnType<typeof setTimeout> | undefined;

const app = new App({ name: 'ops-console-deployment-board', version: '1.0.0' }, {});

app.addEventListener('toolinput', ({ arguments: args }) => {
  // Arguments come from the model through the host: untrusted, rendered as text only.
  service = typeof args?.name === 'string' ? args.name : undefined;
  version = typeof args?.version === 'string' ? args.version : undefined;
  if (!service) return showMessage('The tool input names no service.');
  element('title').textContent = `Deploying ${service}${version ? ` ${version}` : ''}`;
  setStatus('running', 'starting');
  element('summary').textContent = 'Rolling out step by step…';
  void poll();
});

app.addEventListener('toolresult', (result) => {
  finished = true;
  stopPolling();
  void showResult(result as ToolResult);
});

app.addEventListener('toolcancelled', ({ reason }) => {
  finished = true;
  stopPolling();
  setStatus('cancelled', 'cancelled');
  showMessage(reason ? `The host cancelled the call: ${reason}` : 'The host cancelled the call.');
});

app.addEventListener('hostcontextchanged', (context) => applyHostContext(context));

app.onteardown = async () => {
  finished = true;
  stopPolling();
  return {};
};

cancelButton.addEventListener('click', async () => {
  if (!service) return;
  cancelButton.disabled = true;
  showMessage('Cancelling…');
  const result = (await app.callServerTool({ name: 'cancel_deployment', arguments: { name: service } })) as ToolResult;
  if (result.isError) return showMessage(textOf(result));
  render(result.structuredContent as Rollout);
});

/** Asks the server (through the host) where the rollout stands, and again shortly while it runs. */
async function poll(): Promise<void> {
  pollTimer = undefined;
  if (!service) return;
  try {
    const result = (await app.callServerTool({
      name: 'deployment_status',
      arguments: { name: service },
    })) as ToolResult;
    if (!result.isError) render(result.structuredContent as Rollout);
  } catch (error) {
    showMessage(`The status is unavailable: ${(error as Error).message}`);
  }
  if (!finished && (!shown || shown.status === 'running')) pollTimer = setTimeout(() => void poll(), POLL_MS);
  // Until this rollout shows up (an earlier one of the service may answer first), `shown` stays unset: keep polling.
}

function stopPolling(): void {
  if (pollTimer !== undefined) clearTimeout(pollTimer);
  pollTimer = undefined;
}

/** Shows the call's final result, with the rollout's last state read once more. */
async function showResult(result: ToolResult): Promise<void> {
  if (service) {
    const status = (await app.callServerTool({
      name: 'deployment_status',
      arguments: { name: service },
    })) as ToolResult;
    if (!status.isError) render(status.structuredContent as Rollout);
  }
  if (result.isError) {
    setStatus(shown?.status === 'cancelled' ? 'cancelled' : 'failed');
    showMessage(textOf(result));
  } else {
    const done = result.structuredContent as { service: string; fromVersion: string; toVersion: string } | undefined;
    setStatus('succeeded');
    element('title').textContent = `Deployed ${service ?? ''}${version ? ` ${version}` : ''}`;
    showMessage(done ? `${done.service} now runs ${done.toVersion} (was ${done.fromVersion}).` : textOf(result));
  }
  cancelButton.disabled = true;
}

function render(rollout: Rollout | undefined): void {
  // Only this call's rollout: the service's previous one may still be the latest when the board first asks.
  if (!rollout || !Array.isArray(rollout.steps) || (version !== undefined && rollout.version !== version)) return;
  shown = rollout;
  setStatus(rollout.status);
  element('summary').textContent = `${rollout.service}: ${rollout.fromVersion} → ${rollout.version}`;
  const list = element<HTMLOListElement>('steps');
  list.replaceChildren(
    ...rollout.steps.map((step, index) => {
      const item = document.createElement('li');
      item.textContent = step;
      item.dataset.state =
        index < rollout.completed
          ? 'done'
          : index === rollout.completed
            ? rollout.status === 'running'
              ? 'current'
              : 'stopped'
            : 'pending';
      if (index === rollout.completed && rollout.status === 'succeeded') item.dataset.state = 'done';
      return item;
    }),
  );
  const percent = rollout.steps.length === 0 ? 0 : Math.round((rollout.completed / rollout.steps.length) * 100);
  element('bar').style.width = `${percent}%`;
  element('bar').parentElement!.setAttribute('aria-valuenow', String(percent));
  element('completed').textContent = `${rollout.completed}/${rollout.steps.length} steps`;
  cancelButton.disabled = rollout.status !== 'running';
  if (rollout.message) showMessage(rollout.message);
}

function setStatus(status: Rollout['status'] | 'waiting', label: string = status): void {
  board.dataset.status = status;
  element('status').textContent = label;
}

function showMessage(text: string): void {
  element('message').textContent = text;
}

function textOf(result: ToolResult): string {
  return (result.content ?? []).map((block) => block.text ?? '').join('\n') || 'No details.';
}

function applyHostContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

app.connect().then(
  () => applyHostContext(app.getHostContext()),
  (error: Error) => showMessage(`Could not connect to the host: ${error.message}`),
);
