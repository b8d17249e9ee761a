import { useMemo, useState } from 'preact/hooks';
import { ListenStream } from '../app/listen.stream.js';
import type { Catalog, Playground } from '../app/playground.js';
import { useStore } from '../app/store.js';
import { META, PROTOCOL_VERSION } from '../protocol/protocol.constants.js';
import type { Implementation } from '../protocol/wire.types.js';
import { CatalogList, type Selection } from './catalog.js';
import { ExchangePanel } from './exchange-panel.js';
import { ListenPanel } from './listen-panel.js';
import { PromptPanel } from './prompt-panel.js';
import { ResourcePanel } from './resource-panel.js';
import { SignIn } from './sign-in.js';
import { ToolPanel } from './tool-panel.js';

/** The page: the server's header, its catalog, the selected item, and the activity panels (raw JSON-RPC, listen). */
export function PlaygroundApp({ playground }: { playground: Playground }) {
  const connection = useStore(playground.connection);
  const token = useStore(playground.token);
  const listen = useMemo(() => new ListenStream(playground.client), [playground]);
  const [tab, setTab] = useState<Selection['kind']>('tool');
  const [selected, setSelected] = useState<Selection>();
  const [activity, setActivity] = useState<'exchanges' | 'listen'>('exchanges');
  const catalog = connection.state === 'ready' ? connection.catalog : undefined;
  const server = catalog?.discover._meta?.[META.serverInfo] as Implementation | undefined;

  return (
    <div class="playground">
      <header class="top">
        <h1>
          MCP playground <span class="endpoint">{location.origin + playground.endpoint}</span>
        </h1>
        <div class="server" data-testid="server">
          {server && (
            <span>
              <strong>{server.title ?? server.name}</strong> {server.version}
            </span>
          )}
          <span class="badge">{PROTOCOL_VERSION}</span>
          {token && (
            <button
              type="button"
              class="small"
              onClick={() => (playground.token.set(undefined), void playground.refresh())}
            >
              Sign out
            </button>
          )}
          <button type="button" class="small" onClick={() => void playground.refresh()}>
            Refresh
          </button>
        </div>
      </header>
      <main>
        <aside>
          {catalog && (
            <CatalogList
              catalog={catalog}
              tab={tab}
              selected={selected}
              onTab={setTab}
              onSelect={(selection) => setSelected(selection)}
            />
          )}
          {catalog?.discover.instructions && (
            <details class="instructions">
              <summary>Instructions</summary>
              <p>{catalog.discover.instructions}</p>
            </details>
          )}
        </aside>
        <section class="content">
          {connection.state === 'loading' && <p class="hint">Asking the server what it offers…</p>}
          {connection.state === 'failed' && <p class="problem">{connection.problem}</p>}
          {connection.state === 'auth-required' && <SignIn playground={playground} challenge={connection.challenge} />}
          {catalog && <Detail playground={playground} catalog={catalog} selected={selected} />}
        </section>
        <section class="activity">
          <div class="tabs" role="tablist">
            <button
              type="button"
              role="tab"
              class={activity === 'exchanges' ? 'active' : ''}
              data-tab="exchanges"
              onClick={() => setActivity('exchanges')}
            >
              Raw JSON-RPC
            </button>
            <button
              type="button"
              role="tab"
              class={activity === 'listen' ? 'active' : ''}
              data-tab="listen"
              onClick={() => setActivity('listen')}
            >
              Listen
            </button>
          </div>
          {activity === 'exchanges' ? <ExchangePanel log={playground.log} /> : <ListenPanel stream={listen} />}
        </section>
      </main>
    </div>
  );
}

function Detail({ playground, catalog, selected }: { playground: Playground; catalog: Catalog; selected?: Selection }) {
  if (!selected) return <p class="hint">Pick a tool, prompt, resource or template.</p>;
  switch (selected.kind) {
    case 'tool': {
      const tool = catalog.tools.find((candidate) => candidate.name === selected.key);
      return tool ? <ToolPanel key={tool.name} playground={playground} tool={tool} /> : null;
    }
    case 'prompt': {
      const prompt = catalog.prompts.find((candidate) => candidate.name === selected.key);
      return prompt ? <PromptPanel key={prompt.name} playground={playground} prompt={prompt} /> : null;
    }
    case 'resource': {
      const resource = catalog.resources.find((candidate) => candidate.uri === selected.key);
      return resource ? <ResourcePanel key={resource.uri} playground={playground} resource={resource} /> : null;
    }
    case 'template': {
      const template = catalog.templates.find((candidate) => candidate.uriTemplate === selected.key);
      return template ? <ResourcePanel key={template.uriTemplate} playground={playground} template={template} /> : null;
    }
  }
}
