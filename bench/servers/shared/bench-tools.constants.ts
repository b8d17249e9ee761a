/**
 * What the bench tools look like on every server, so that each does the same work: the input schemas (JSON
 * Schema; peers that want a Standard Schema get the zod equivalent) and the yield rhythm of `count`.
 */

export const ECHO_INPUT_SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
} as const;

export const COUNT_INPUT_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 0, maximum: 1_000_000 } },
  required: ['n'],
} as const;

/** Schema of every generated tool of the bootstrap workload. */
export const GENERATED_TOOL_SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'Any text' },
    repeat: { type: 'integer', minimum: 1, maximum: 10 },
  },
  required: ['text'],
} as const;

/** `count` yields to the event loop after this many notifications (lets drain and close callbacks run). */
export const YIELD_EVERY = 100;

export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
