import { useEffect, useState } from 'preact/hooks';
import { McpCall } from '../app/mcp.call.js';
import type { Playground } from '../app/playground.js';
import { paramHeaders } from '../protocol/headers.util.js';
import type { JsonValue, Tool } from '../protocol/wire.types.js';
import { initialValue } from '../schema/json-schema.util.js';
import { SchemaForm } from '../schema/schema-form.js';
import { AppView } from './app-view.js';
import { CallPanel } from './call-panel.js';

/** A tool: its description, a form from its input schema (or raw JSON), and its calls. */
export function ToolPanel({ playground, tool }: { playground: Playground; tool: Tool }) {
  const [args, setArgs] = useState<JsonValue | undefined>(() => initialValue(tool.inputSchema) ?? {});
  const [raw, setRaw] = useState(false);
  const [rawText, setRawText] = useState('');
  const [rawProblem, setRawProblem] = useState<string>();
  const [call, setCall] = useState<{ call: McpCall; args: Record<string, unknown> }>();
  useEffect(() => () => call?.call.dispose(), [call]);
  const viewUri = tool._meta?.ui?.resourceUri;

  const start = () => {
    const given = (args ?? {}) as Record<string, unknown>;
    const next = new McpCall(
      playground.client,
      'tools/call',
      { name: tool.name, arguments: given },
      paramHeaders(tool.inputSchema, given),
    );
    setCall({ call: next, args: given });
    void next.run();
  };

  return (
    <article class="detail" data-testid="tool-panel" data-tool={tool.name}>
      <h2>{tool.title ?? tool.name}</h2>
      {tool.title && <code class="name">{tool.name}</code>}
      {tool.description && <p class="description">{tool.description}</p>}
      <Annotations tool={tool} />
      <form
        class="arguments"
        onSubmit={(event) => {
          event.preventDefault();
          start();
        }}
      >
        <div class="form-head">
          <h3>Arguments</h3>
          <label class="toggle">
            <input
              type="checkbox"
              checked={raw}
              onChange={(event) => {
                const on = event.currentTarget.checked;
                if (on) setRawText(JSON.stringify(args ?? {}, null, 2));
                setRaw(on);
              }}
            />{' '}
            Raw JSON
          </label>
        </div>
        {raw ? (
          <>
            <textarea
              class="json"
              rows={8}
              value={rawText}
              data-testid="raw-arguments"
              onInput={(event) => {
                const text = event.currentTarget.value;
                setRawText(text);
                try {
                  setArgs(JSON.parse(text) as JsonValue);
                  setRawProblem(undefined);
                } catch (error) {
                  setRawProblem((error as Error).message);
                }
              }}
            />
            {rawProblem && <small class="problem">{rawProblem}</small>}
          </>
        ) : (
          <SchemaForm id={`tool-${tool.name}`} schema={tool.inputSchema} value={args} onChange={setArgs} />
        )}
        <div class="buttons">
          <button type="submit" class="primary" disabled={raw && rawProblem !== undefined} data-testid="call-tool">
            Call {tool.name}
          </button>
        </div>
      </form>
      {call && <CallPanel key={call.call} call={call.call} />}
      {call && viewUri && (
        <AppView key={call.call} playground={playground} tool={tool} uri={viewUri} args={call.args} call={call.call} />
      )}
    </article>
  );
}

function Annotations({ tool }: { tool: Tool }) {
  const hints = Object.entries(tool.annotations ?? {}).filter(([, value]) => value === true);
  const visibility = tool._meta?.ui?.visibility;
  if (hints.length === 0 && !tool._meta?.ui) return null;
  return (
    <p class="annotations">
      {hints.map(([hint]) => (
        <span key={hint} class="badge">
          {hint.replace(/Hint$/, '')}
        </span>
      ))}
      {tool._meta?.ui?.resourceUri && <span class="badge">MCP App view</span>}
      {visibility && <span class="badge">visible to {visibility.join(', ')}</span>}
    </p>
  );
}
