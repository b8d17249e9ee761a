import type { McpClientCapabilities } from '../protocol/mcp-wire.interface.js';

/** The outcome of reading a client's answer to an input request. */
export type ParsedAnswer<A> = { ok: true; answer: A } | { ok: false; malformed: boolean };

/**
 * Something a handler asks the client for during a call (elicitation, sampling, roots): the embedded request of an
 * `InputRequiredResult`, what the client must declare to answer it, and how to read the answer.
 */
export interface McpInputRequest<A> {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params?: Readonly<Record<string, unknown>>;
  /** The capabilities this request needs (for `-32021`'s `requiredCapabilities`). */
  readonly requiredCapabilities: McpClientCapabilities;
  /** Whether the request's declared capabilities allow it. */
  isAllowed(capabilities: McpClientCapabilities): boolean;
  /** Reads an answer: malformed (not even the answer's shape) is a protocol error; invalid content re-asks. */
  parse(raw: unknown): ParsedAnswer<A>;
  /** Type carrier for inference only; never set. */
  readonly __answer?: A;
}
