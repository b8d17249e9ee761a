import { TokenStore } from '../auth/token.store.js';
import { ExchangeLog } from '../protocol/exchange.log.js';
import { McpClient } from '../protocol/mcp.client.js';
import { AuthRequiredError } from '../protocol/mcp.errors.js';
import type { DiscoverResult, Prompt, Resource, ResourceTemplate, Tool } from '../protocol/wire.types.js';
import { Store } from './store.js';

/** What the server offers, as the lists answered it (every page). */
export interface Catalog {
  discover: DiscoverResult;
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
}

/** Where the page stands with the server. */
export type Connection =
  | { state: 'loading' }
  | { state: 'ready'; catalog: Catalog }
  | { state: 'auth-required'; challenge: AuthRequiredError }
  | { state: 'failed'; problem: string };

/** The page's configuration block (the `playground` option). */
export interface PageConfig {
  clientId?: string;
  scopes?: string[];
}

/** The page's state: the client of the endpoint, its exchange log, the token, and what the server offers. */
export class Playground {
  readonly log = new ExchangeLog();
  readonly token = new TokenStore();
  readonly client: McpClient;
  readonly connection = new Store<Connection>({ state: 'loading' });

  constructor(
    readonly endpoint: string,
    readonly config: PageConfig,
  ) {
    this.client = new McpClient(endpoint, this.log, () => this.token.value);
  }

  /** `server/discover`, then every list the capabilities announce, each followed through all its pages. */
  async refresh(): Promise<void> {
    this.connection.set({ state: 'loading' });
    try {
      const discover = await this.client.request<DiscoverResult>('server/discover');
      const capabilities = discover.capabilities ?? {};
      const list = <T>(capability: string, method: string, key: string) =>
        capability in capabilities ? this.client.listAll<T>(method, key) : Promise.resolve<T[]>([]);
      const [tools, prompts, resources, templates] = await Promise.all([
        list<Tool>('tools', 'tools/list', 'tools'),
        list<Prompt>('prompts', 'prompts/list', 'prompts'),
        list<Resource>('resources', 'resources/list', 'resources'),
        list<ResourceTemplate>('resources', 'resources/templates/list', 'resourceTemplates'),
      ]);
      this.connection.set({ state: 'ready', catalog: { discover, tools, prompts, resources, templates } });
    } catch (error) {
      if (error instanceof AuthRequiredError) this.connection.set({ state: 'auth-required', challenge: error });
      else this.connection.set({ state: 'failed', problem: (error as Error).message });
    }
  }
}
