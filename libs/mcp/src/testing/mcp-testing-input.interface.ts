/**
 * Something a handler asked the client for during a call (elicitation, sampling, roots), as a test sees it: one
 * entry of an `input_required` result.
 */
export interface McpTestingInputRequest {
  /** The key the handler used (`ctx.elicit(key, …)`); its answer goes back under this key. */
  key: string;
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  /** The embedded request's params, e.g. `{ mode: 'form', message, requestedSchema }` or `{ mode: 'url', message, url }`. */
  params: {
    mode?: 'form' | 'url';
    message?: string;
    requestedSchema?: Record<string, unknown>;
    url?: string;
    [key: string]: unknown;
  };
  /** The round that asked, from 1. */
  round: number;
}

/**
 * An answer to an input request, sent back as is in `inputResponses`, e.g. `{ action: 'accept', content: { confirm:
 * true } }`, `{ action: 'decline' }`, or a sampling / roots result.
 */
export type McpTestingAnswer = Record<string, unknown>;

/** Answers input requests for a test, like a user (or the client's model) would. */
export type McpElicitHandler = (request: McpTestingInputRequest) => McpTestingAnswer | Promise<McpTestingAnswer>;
