import { useEffect, useState } from 'preact/hooks';
import { McpCall } from '../app/mcp.call.js';
import type { Playground } from '../app/playground.js';
import type { Resource, ResourceTemplate } from '../protocol/wire.types.js';
import { CallPanel } from './call-panel.js';

/** The variables of a URI template (RFC 6570), operators aside: `ops://services/{name}` → `name`. */
function variablesOf(template: string): string[] {
  return [...template.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((match) =>
    match[1].split(',').map((name) => name.replace(/[*:].*$/, '')),
  );
}

/** Expands simple `{name}` variables (values percent-encoded); operators other than none are expanded the same way. */
function expand(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, operator: string, names: string) =>
    names
      .split(',')
      .map((name) => {
        const value = values[name.replace(/[*:].*$/, '')] ?? '';
        return operator === '+' || operator === '#' ? encodeURI(value) : encodeURIComponent(value);
      })
      .join(','),
  );
}

/** A resource (read at once) or a template (its variables filled in first), read with `resources/read`. */
export function ResourcePanel({
  playground,
  resource,
  template,
}: {
  playground: Playground;
  resource?: Resource;
  template?: ResourceTemplate;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [call, setCall] = useState<McpCall>();
  useEffect(() => () => call?.dispose(), [call]);
  const item = resource ?? template!;
  const read = (uri: string) => {
    const next = new McpCall(playground.client, 'resources/read', { uri });
    setCall(next);
    void next.run();
  };
  return (
    <article class="detail" data-testid="resource-panel">
      <h2>{item.title ?? item.name}</h2>
      <code class="name">{resource?.uri ?? template?.uriTemplate}</code>
      {item.description && <p class="description">{item.description}</p>}
      <form
        class="arguments"
        onSubmit={(event) => {
          event.preventDefault();
          read(resource ? resource.uri : expand(template!.uriTemplate, values));
        }}
      >
        {template &&
          variablesOf(template.uriTemplate).map((name) => (
            <div class="field" key={name}>
              <label for={`var-${name}`}>{name}</label>
              <input
                id={`var-${name}`}
                required
                value={values[name] ?? ''}
                onInput={(event) => setValues({ ...values, [name]: event.currentTarget.value })}
              />
            </div>
          ))}
        <div class="buttons">
          <button type="submit" class="primary">
            Read
          </button>
        </div>
      </form>
      {call && <CallPanel key={call} call={call} />}
    </article>
  );
}
