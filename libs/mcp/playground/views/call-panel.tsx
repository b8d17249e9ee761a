import type { McpCall } from '../app/mcp.call.js';
import { useStore } from '../app/store.js';
import { InputForm } from './input-form.js';
import { JsonView } from './json-view.js';
import { ResultView } from './result-view.js';

const PHASE_LABEL: Record<string, string> = {
  running: 'Running',
  input: 'Waiting for your answer',
  task: 'Task',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** A call in progress or done: its progress bar, log lines, input requests, task and result. */
export function CallPanel({ call }: { call: McpCall }) {
  const state = useStore(call.state);
  const cancellable =
    state.phase === 'running' || state.phase === 'input' || (state.phase === 'task' && state.task !== undefined);
  return (
    <section class="call" data-testid="call" data-phase={state.phase}>
      <header>
        <span class={`badge phase-${state.phase}`}>{PHASE_LABEL[state.phase]}</span>
        {state.round > 1 && <span class="badge">round {state.round}</span>}
        {cancellable && (
          <button type="button" class="small" onClick={() => void call.cancel()}>
            Cancel
          </button>
        )}
      </header>
      {state.progress && (
        <div class="progress" data-testid="progress">
          <progress value={state.progress.progress} max={state.progress.total ?? undefined} />
          <span>
            {state.progress.total !== undefined
              ? `${Math.round((state.progress.progress / state.progress.total) * 100)}%`
              : state.progress.progress}
            {state.progress.message && ` — ${state.progress.message}`}
          </span>
        </div>
      )}
      {state.logs.length > 0 && (
        <ol class="logs" data-testid="logs">
          {state.logs.map((line, index) => (
            <li key={index} class={`log level-${line.level}`}>
              <span class="level">{line.level}</span>
              {line.logger && <span class="logger">{line.logger}</span>}
              <span>{typeof line.data === 'string' ? line.data : JSON.stringify(line.data)}</span>
            </li>
          ))}
        </ol>
      )}
      {state.task && (
        <div class="task" data-testid="task" data-status={state.task.status}>
          <p>
            Task <code>{state.task.taskId}</code>: <strong>{state.task.status}</strong>
            {state.task.statusMessage && ` — ${state.task.statusMessage}`}
          </p>
        </div>
      )}
      {state.prompt && <InputForm key={Object.keys(state.prompt.requests).join(',')} prompt={state.prompt} />}
      {state.result && <ResultView result={state.result} />}
      {state.problem && (
        <p class="problem" data-testid="problem">
          {state.problem}
        </p>
      )}
      {state.phase === 'failed' && state.task?.error && <JsonView value={state.task.error} />}
    </section>
  );
}
