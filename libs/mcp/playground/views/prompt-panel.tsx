import { useEffect, useState } from 'preact/hooks';
import { McpCall } from '../app/mcp.call.js';
import type { Playground } from '../app/playground.js';
import type { Prompt } from '../protocol/wire.types.js';
import { CallPanel } from './call-panel.js';

/** A prompt: a text field per argument, and `prompts/get` (with its input rounds) on submit. */
export function PromptPanel({ playground, prompt }: { playground: Playground; prompt: Prompt }) {
  const [args, setArgs] = useState<Record<string, string>>({});
  const [call, setCall] = useState<McpCall>();
  useEffect(() => () => call?.dispose(), [call]);
  return (
    <article class="detail" data-testid="prompt-panel">
      <h2>{prompt.title ?? prompt.name}</h2>
      {prompt.description && <p class="description">{prompt.description}</p>}
      <form
        class="arguments"
        onSubmit={(event) => {
          event.preventDefault();
          const given = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== ''));
          const next = new McpCall(playground.client, 'prompts/get', { name: prompt.name, arguments: given });
          setCall(next);
          void next.run();
        }}
      >
        {(prompt.arguments ?? []).map((argument) => (
          <div class="field" key={argument.name}>
            <label for={`prompt-${argument.name}`}>
              {argument.name}
              {argument.required && <span class="required"> *</span>}
            </label>
            <input
              id={`prompt-${argument.name}`}
              required={argument.required}
              value={args[argument.name] ?? ''}
              onInput={(event) => setArgs({ ...args, [argument.name]: event.currentTarget.value })}
            />
            {argument.description && <small class="hint">{argument.description}</small>}
          </div>
        ))}
        <div class="buttons">
          <button type="submit" class="primary">
            Get prompt
          </button>
        </div>
      </form>
      {call && <CallPanel key={call} call={call} />}
    </article>
  );
}
