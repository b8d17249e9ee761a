import { useState } from 'preact/hooks';
import type { ListenFilter, ListenStream } from '../app/listen.stream.js';
import { useStore } from '../app/store.js';

/** Opens a `subscriptions/listen` stream with a filter, and shows what arrives on it. */
export function ListenPanel({ stream }: { stream: ListenStream }) {
  const state = useStore(stream.state);
  const [filter, setFilter] = useState<ListenFilter>({
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
    resourceSubscriptions: [],
    taskIds: [],
  });
  const [uris, setUris] = useState('');
  const [taskIds, setTaskIds] = useState('');
  const flag = (key: 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged', label: string) => (
    <label>
      <input
        type="checkbox"
        checked={filter[key]}
        onChange={(event) => setFilter({ ...filter, [key]: event.currentTarget.checked })}
      />{' '}
      {label}
    </label>
  );
  const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);
  return (
    <div class="listen" data-testid="listen" data-phase={state.phase}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (state.phase === 'open') stream.close();
          else stream.open({ ...filter, resourceSubscriptions: list(uris), taskIds: list(taskIds) });
        }}
      >
        <div class="choices">
          {flag('toolsListChanged', 'tools')}
          {flag('promptsListChanged', 'prompts')}
          {flag('resourcesListChanged', 'resources')}
        </div>
        <input
          placeholder="resource URIs to follow (space-separated)"
          value={uris}
          onInput={(event) => setUris(event.currentTarget.value)}
        />
        <input
          placeholder="task ids to follow (space-separated)"
          value={taskIds}
          onInput={(event) => setTaskIds(event.currentTarget.value)}
        />
        <button type="submit" class={state.phase === 'open' ? '' : 'primary'} data-testid="listen-toggle">
          {state.phase === 'open' ? 'Close the stream' : 'Open a listen stream'}
        </button>
        <span class={`badge phase-${state.phase}`}>{state.phase}</span>
      </form>
      {state.problem && <p class="problem">{state.problem}</p>}
      <ol class="heard">
        {state.heard.map(({ at, notification }, index) => (
          <li key={index}>
            <time>{new Date(at).toLocaleTimeString()}</time> <strong>{notification.method}</strong>
            <pre class="json">{JSON.stringify(notification.params ?? {}, null, 2)}</pre>
          </li>
        ))}
      </ol>
    </div>
  );
}
