import { checkScopes } from '../discovery/scopes.util.js';
import { compileSchema, type SchemaInput } from '../schema/index.js';
import {
  DEFAULT_REPLAY,
  EVENT_DELIVERY_MODES,
  EVENT_NAME,
  RESERVED_EVENT_PREFIX,
  type McpEventDeliveryMode,
} from './events.constants.js';
import { McpEventDefinitionError } from './event-definition.error.js';
import type { McpEventTypeEntry } from './event-type.js';
import type { McpEventAuthorizer, McpEventMatcher, McpEventOptions } from './mcp-event.decorator.js';

/** The schema of arguments or payload when a type declares none (SEP-3415 asks for `{"type":"object"}`). */
const ANY_OBJECT = Object.freeze({ type: 'object' });

/**
 * Checks an event type declaration and builds its entry; shared by the explorer (`@McpEvent` methods) and runtime
 * registration. `where` names the declaration in errors; `host` resolves an `authorize` given by method name.
 */
export function createEventType(
  where: string,
  options: McpEventOptions & { name: string },
  match: McpEventMatcher,
  host?: object,
  scopes: readonly string[] = [],
): McpEventTypeEntry {
  const { name } = options;
  if (typeof name !== 'string' || !EVENT_NAME.test(name)) {
    throw new McpEventDefinitionError(
      where,
      `name ${JSON.stringify(name)} must be 1-128 characters of A-Z a-z 0-9 _ . : / -`,
    );
  }
  if (name.startsWith(RESERVED_EVENT_PREFIX))
    throw new McpEventDefinitionError(
      where,
      `names starting with "${RESERVED_EVENT_PREFIX}" are reserved for MCP itself`,
    );
  if (typeof match !== 'function') throw new McpEventDefinitionError(where, 'the matcher must be a function');
  const modes = deliveryModes(where, options.delivery);
  const retention = replayOf(where, options.replay);
  if (!retention && modes.has('poll')) {
    throw new McpEventDefinitionError(
      where,
      "delivery 'poll' needs replay: polling reads the history (remove 'poll' or drop replay: false)",
    );
  }
  const owner = `event type "${name}" (${where})`;
  const compile = (schema: SchemaInput | undefined, role: 'input' | 'output') => {
    if (schema === undefined) return undefined;
    try {
      return compileSchema(schema, { role, owner });
    } catch (error) {
      throw new McpEventDefinitionError(where, (error as Error).message);
    }
  };
  const input = compile(options.input, 'input');
  const payload = compile(options.payload, 'output');
  if (options.description !== undefined && typeof options.description !== 'string')
    throw new McpEventDefinitionError(where, 'description must be a string');
  return {
    name,
    definition: Object.freeze({
      name,
      ...(options.description !== undefined && { description: options.description }),
      delivery: Object.freeze([...modes]),
      inputSchema: input?.jsonSchema ?? ANY_OBJECT,
      payloadSchema: payload?.jsonSchema ?? ANY_OBJECT,
      ...(options._meta !== undefined && { _meta: options._meta }),
    }),
    input,
    payload,
    modes,
    retention,
    match,
    authorize: authorizerOf(where, options.authorize, host),
    summary: Object.freeze({ kind: 'event', name, scopes: checkScopes(where, scopes) }),
  };
}

function deliveryModes(where: string, delivery: unknown): ReadonlySet<McpEventDeliveryMode> {
  if (delivery === undefined) return new Set(EVENT_DELIVERY_MODES);
  if (!Array.isArray(delivery) || delivery.length === 0) {
    throw new McpEventDefinitionError(
      where,
      `delivery must be a non-empty list of ${EVENT_DELIVERY_MODES.map((mode) => `'${mode}'`).join(', ')}`,
    );
  }
  for (const mode of delivery) {
    if (!(EVENT_DELIVERY_MODES as readonly unknown[]).includes(mode))
      throw new McpEventDefinitionError(where, `unknown delivery mode ${JSON.stringify(mode)}`);
  }
  // In the catalog's canonical order, whatever the declaration's.
  return new Set(EVENT_DELIVERY_MODES.filter((mode) => delivery.includes(mode)));
}

function replayOf(where: string, replay: McpEventOptions['replay']): McpEventTypeEntry['retention'] {
  if (replay === false) return undefined;
  if (replay !== undefined && (typeof replay !== 'object' || replay === null))
    throw new McpEventDefinitionError(where, 'replay must be false or { windowMs?, maxEvents? }');
  const windowMs = replay?.windowMs ?? DEFAULT_REPLAY.windowMs;
  const maxEvents = replay?.maxEvents ?? DEFAULT_REPLAY.maxEvents;
  if (!Number.isFinite(windowMs) || windowMs <= 0)
    throw new McpEventDefinitionError(where, 'replay.windowMs must be a positive number');
  if (!Number.isInteger(maxEvents) || maxEvents <= 0)
    throw new McpEventDefinitionError(where, 'replay.maxEvents must be a positive integer');
  return Object.freeze({ windowMs, maxEvents });
}

function authorizerOf(
  where: string,
  authorize: McpEventOptions['authorize'],
  host: object | undefined,
): McpEventAuthorizer | undefined {
  if (authorize === undefined) return undefined;
  if (typeof authorize === 'function') return authorize;
  const method = typeof authorize === 'string' ? (host as Record<string, unknown> | undefined)?.[authorize] : undefined;
  if (typeof method !== 'function')
    throw new McpEventDefinitionError(
      where,
      'authorize must be a function or the name of a method of the same provider',
    );
  return (method as McpEventAuthorizer).bind(host);
}
