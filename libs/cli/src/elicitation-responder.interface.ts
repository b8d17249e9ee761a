/** The params of an `elicitation/create` request, as the client hands them over. */
export interface ElicitationParams {
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[] };
  url?: string;
  [key: string]: unknown;
}

/** What the CLI answers to an elicitation. */
export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** Answers elicitations: a person at the terminal, or `--answer` from the command line. */
export interface ElicitationResponder {
  /** `key` is the server's input request key (the name `--answer` uses). */
  answer(key: string, params: ElicitationParams): Promise<ElicitationAnswer>;
}
