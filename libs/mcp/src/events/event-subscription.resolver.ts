import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpCaller } from '../protocol/mcp-caller.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { formatIssues } from '../schema/index.js';
import { McpAccessPolicy } from '../server/access.policy.js';
import { canonicalJson } from './canonical-json.util.js';
import { McpEventErrors } from './event-errors.js';
import type { McpEventTypeEntry } from './event-type.js';
import { McpEventTypes } from './event-types.registry.js';
import type { McpEventDeliveryMode } from './events.constants.js';

/** One subscription `(name, arguments)` of a request, checked: the type, the arguments as sent and as validated. */
export interface ResolvedEventSubscription {
  readonly type: McpEventTypeEntry;
  /** The arguments exactly as the client sent them: the subscription's identity. */
  readonly arguments: Record<string, unknown>;
  /** Their canonical JSON. */
  readonly canonical: string;
  /** SHA-256 of the canonical JSON (base64url): what cursors are bound to. */
  readonly hash: string;
  /** What validation made of them (a DTO instance…), for the matcher. */
  readonly value: unknown;
}

/**
 * The checks every subscription of the events extension starts with (`events/poll`, `events/stream`,
 * `events/subscribe`), in SEP-3415's order: the type exists and the caller may see it (`NotFound` kind `event`,
 * hidden alike; scopes as for a tool: 403 `insufficient_scope`), it offers the mode (`Unsupported`), the arguments are
 * an object of bounded size that validates, unchanged (`-32602`), and the type's `authorize` admits the caller with
 * them (`Forbidden`).
 */
@Injectable()
export class EventSubscriptionResolver {
  private readonly logger = new Logger('McpEvents');

  constructor(
    private readonly types: McpEventTypes,
    private readonly access: McpAccessPolicy,
    private readonly errors: McpEventErrors,
    private readonly options: McpResolvedOptions,
  ) {}

  /** Checks `params.name` and `params.arguments` of a request for a subscription in `mode`. */
  async resolve(scope: McpRequestScope, mode: McpEventDeliveryMode): Promise<ResolvedEventSubscription> {
    const name = scope.params.name;
    if (typeof name !== 'string' || name.length === 0)
      throw McpError.invalidParams('Invalid params: "name" must be a non-empty string');
    const unknown = (key: string) =>
      this.errors.notFound('event', `no event type named ${JSON.stringify(key.slice(0, 128))}`);
    const type = this.types.get(name) ?? (await this.types.catchUp(), this.types.get(name));
    if (!type) throw unknown(name);
    this.access.admit(scope, type.summary, unknown, name);
    if (!type.modes.has(mode)) throw this.errors.unsupportedMode(mode);
    const { args, canonical, hash } = this.readArguments(scope.params);
    const value = await this.validate(type, args);
    if (type.authorize && !(await this.admits(type, value, scope)))
      throw this.errors.forbidden('these arguments are not allowed for this caller');
    return { type, arguments: args, canonical, hash, value };
  }

  /** `params.arguments` (absent: `{}`), its canonical JSON and its hash; not an object, or too large: `-32602`. */
  readArguments(params: JsonObject): { args: Record<string, unknown>; canonical: string; hash: string } {
    const raw = params.arguments === undefined ? {} : params.arguments;
    if (!isJsonObject(raw)) throw McpError.invalidParams('Invalid params: "arguments" must be an object');
    const canonical = canonicalJson(raw);
    const limit = this.options.events.maxArgumentsBytes;
    if (Buffer.byteLength(canonical) > limit) {
      throw McpError.invalidParams(
        `Invalid params: "arguments" exceed ${limit} bytes (McpModule option events.maxArgumentsBytes)`,
        { maxBytes: limit },
      );
    }
    return { args: raw, canonical, hash: hashOf(canonical) };
  }

  /**
   * Whether `caller` may still have this subscription, checked again at delivery time (SEP-3415, "Authorization"):
   * the type's scopes against the scopes the caller had, the `visibility` hook, and `authorize` with the validated
   * arguments. A webhook subscription keeps no token: its caller is its principal with the scopes granted when it
   * subscribed, so an application revokes it through the hook or `authorize` (a disabled user, a lost membership).
   */
  async stillAllowed(type: McpEventTypeEntry, value: unknown, caller: McpCaller): Promise<boolean> {
    if (!this.access.isVisible(type.summary, caller)) return false;
    if (!type.authorize) return true;
    try {
      return (await type.authorize(value, caller)) === true;
    } catch (error) {
      this.logger.error(
        `The authorize hook of event type ${type.name} threw; the subscription is ended`,
        (error as Error)?.stack ?? String(error),
      );
      return false;
    }
  }

  /** The caller a request's subscription is authorized as (see `stillAllowed`). */
  callerOf(scope: McpRequestScope): McpCaller {
    return this.access.callerOf(scope);
  }

  /** The matcher's view of stored arguments (a webhook subscription's), validated again; undefined if they no longer validate. */
  async revalidate(type: McpEventTypeEntry, args: Record<string, unknown>): Promise<{ value: unknown } | undefined> {
    if (!type.input) return { value: args };
    const outcome = await type.input.validate(structuredClone(args));
    return outcome.valid ? { value: outcome.value } : undefined;
  }

  private async validate(type: McpEventTypeEntry, args: Record<string, unknown>): Promise<unknown> {
    if (!type.input) return args;
    // A copy: a DTO or Standard Schema may transform what it validates, and the identity is what the client sent.
    const outcome = await type.input.validate(structuredClone(args));
    if (!outcome.valid)
      throw McpError.invalidParams(`Invalid params: arguments ${formatIssues(outcome.issues, outcome.omitted)}`);
    return outcome.value;
  }

  private async admits(type: McpEventTypeEntry, value: unknown, scope: McpRequestScope): Promise<boolean> {
    try {
      return (await type.authorize!(value, this.access.callerOf(scope))) === true;
    } catch (error) {
      this.logger.error(
        `The authorize hook of event type ${type.name} threw; the subscription is refused`,
        (error as Error)?.stack ?? String(error),
      );
      return false;
    }
  }
}

/** SHA-256 of a canonical JSON text, base64url. */
export function hashOf(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url');
}
