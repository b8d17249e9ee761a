import { Ajv2020 } from 'ajv/dist/2020.js';
import { IncrementalSseReader, type WireMessage } from './sse-stream.reader.js';
import { mcpHeaders, requestMeta } from './raw-request.util.js';
import { assertMatchesDef } from './wire-schema.validator.js';

/**
 * The messages of the events extension (SEP-3415) as JSON Schemas written from its text — the official 2026-07-28
 * schema has no events definitions — on top of the core envelopes (`JSONRPCNotification`, `JSONRPCResultResponse`,
 * `JSONRPCErrorResponse` of the vendored schema). Used by the push-stream reader to check every frame as it arrives.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });

const tagged = {
  type: 'object',
  required: ['_meta'],
  properties: { _meta: { type: 'object', required: ['io.modelcontextprotocol/subscriptionId'] } },
} as const;
const cursor = { type: ['string', 'null'] } as const;
const error = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
} as const;

/** `notifications/events/*` params, by method. */
const FRAME_SCHEMAS: Readonly<Record<string, object>> = {
  'notifications/events/active': {
    allOf: [
      tagged,
      { type: 'object', required: ['cursor', 'truncated'], properties: { cursor, truncated: { type: 'boolean' } } },
    ],
  },
  'notifications/events/event': {
    allOf: [
      tagged,
      {
        type: 'object',
        required: ['eventId', 'name', 'timestamp', 'data'],
        properties: {
          eventId: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          timestamp: {
            type: 'string',
            pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)$',
          },
          data: { type: 'object' },
          cursor,
        },
      },
    ],
  },
  'notifications/events/heartbeat': {
    allOf: [tagged, { type: 'object', required: ['cursor'], properties: { cursor } }],
  },
  'notifications/events/error': { allOf: [tagged, { type: 'object', required: ['error'], properties: { error } }] },
  'notifications/events/terminated': {
    allOf: [tagged, { type: 'object', required: ['error'], properties: { error } }],
  },
};

const validators = new Map(Object.entries(FRAME_SCHEMAS).map(([method, schema]) => [method, ajv.compile(schema)]));

/** Throws unless `message` is a valid frame of an `events/stream` response. */
export function assertEventsFrame(message: WireMessage): void {
  if (message.method !== undefined) {
    assertMatchesDef('JSONRPCNotification', message, 'notification');
    const validate = validators.get(message.method);
    if (!validate) throw new Error(`an events stream carries only notifications/events/*, got ${message.method}`);
    if (!validate(message.params))
      throw new Error(`${message.method}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(message)}`);
    return;
  }
  if (message.error !== undefined) {
    assertMatchesDef('JSONRPCErrorResponse', message, 'error response');
    return;
  }
  assertMatchesDef('JSONRPCResultResponse', message, 'result response');
  if (message.result?.resultType !== 'complete')
    throw new Error(`StreamEventsResult needs resultType "complete": ${JSON.stringify(message)}`);
}

/** An `events/stream` response read as it streams; every frame checked with `assertEventsFrame`. */
export class EventsStream extends IncrementalSseReader<WireMessage> {
  protected validate(message: WireMessage): void {
    assertEventsFrame(message);
  }

  /** The frames of one method, in order. */
  frames(method: string): WireMessage[] {
    return this.messages.filter((message) => message.method === method);
  }
}

/** Opens `events/stream` (id, params; `x-principal` when `principal` is given) and returns once headers arrived. */
export async function openEventsStream(
  url: URL,
  id: string | number,
  params: Record<string, unknown>,
  principal?: string,
): Promise<EventsStream> {
  const headers: Record<string, string> = {
    ...mcpHeaders('events/stream', params),
    ...(principal !== undefined && { 'x-principal': principal }),
  };
  const controller = new AbortController();
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'events/stream',
    params: { ...params, _meta: requestMeta() },
  });
  const response = await fetch(url, { method: 'POST', headers, body, signal: controller.signal });
  return new EventsStream(response, controller);
}
