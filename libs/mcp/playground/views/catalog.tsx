import type { Catalog } from '../app/playground.js';

/** What is selected in the catalog: a kind and the item's key (name or URI). */
export interface Selection {
  kind: 'tool' | 'prompt' | 'resource' | 'template';
  key: string;
}

const TABS: Array<{ kind: Selection['kind']; label: string }> = [
  { kind: 'tool', label: 'Tools' },
  { kind: 'prompt', label: 'Prompts' },
  { kind: 'resource', label: 'Resources' },
  { kind: 'template', label: 'Templates' },
];

/** The items of one kind: their key, label and a line of description. */
export function itemsOf(
  catalog: Catalog,
  kind: Selection['kind'],
): Array<{ key: string; label: string; description?: string }> {
  switch (kind) {
    case 'tool':
      return catalog.tools.map((tool) => ({
        key: tool.name,
        label: tool.title ?? tool.name,
        description: tool.description,
      }));
    case 'prompt':
      return catalog.prompts.map((prompt) => ({
        key: prompt.name,
        label: prompt.title ?? prompt.name,
        description: prompt.description,
      }));
    case 'resource':
      return catalog.resources.map((resource) => ({
        key: resource.uri,
        label: resource.title ?? resource.name,
        description: resource.uri,
      }));
    case 'template':
      return catalog.templates.map((template) => ({
        key: template.uriTemplate,
        label: template.title ?? template.name,
        description: template.uriTemplate,
      }));
  }
}

/** The server's tools, prompts, resources and templates, one tab each. */
export function CatalogList({
  catalog,
  tab,
  selected,
  onTab,
  onSelect,
}: {
  catalog: Catalog;
  tab: Selection['kind'];
  selected?: Selection;
  onTab: (kind: Selection['kind']) => void;
  onSelect: (selection: Selection) => void;
}) {
  return (
    <nav class="catalog" data-testid="catalog">
      <div class="tabs" role="tablist">
        {TABS.map(({ kind, label }) => (
          <button
            key={kind}
            type="button"
            role="tab"
            aria-selected={tab === kind}
            class={tab === kind ? 'active' : ''}
            data-tab={kind}
            onClick={() => onTab(kind)}
          >
            {label} <span class="count">{itemsOf(catalog, kind).length}</span>
          </button>
        ))}
      </div>
      <ul class="items">
        {itemsOf(catalog, tab).map((item) => (
          <li key={item.key}>
            <button
              type="button"
              class={selected?.kind === tab && selected.key === item.key ? 'active' : ''}
              data-item={item.key}
              onClick={() => onSelect({ kind: tab, key: item.key })}
            >
              <strong>{item.label}</strong>
              {item.description && <small>{item.description}</small>}
            </button>
          </li>
        ))}
        {itemsOf(catalog, tab).length === 0 && <li class="hint">None.</li>}
      </ul>
    </nav>
  );
}
