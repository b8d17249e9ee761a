/** One document of the playground, ready to be written: its HTML and the headers that go with it (CSP included). */
export interface PlaygroundDocument {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the page's script reads from its configuration block: the `playground` option's fields. */
export interface PlaygroundPageConfig {
  readonly clientId?: string;
  readonly scopes?: readonly string[];
}
