import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpError } from '../protocol/mcp.error.js';
import {
  EVENTS_PROFILES,
  type McpEventsErrorName,
  type McpEventsProfile,
  type McpWebhookFailure,
} from './events-profile.constants.js';

/**
 * The typed errors of the events extension (SEP-3415, "Error Handling"), with the codes of the configured profile
 * (`events.profile`): the message starts with the error's name, the specifics go in `data`. Static invalidity (bad
 * arguments, URL, secret, cursor) is a plain `-32602` (`McpError.invalidParams`), in every profile. All travel as HTTP
 * 200 with the JSON-RPC error.
 */
@Injectable()
export class McpEventErrors {
  /** The configured profile. */
  readonly profile: McpEventsProfile;

  constructor(options: McpResolvedOptions) {
    this.profile = EVENTS_PROFILES[options.events.profile];
  }

  /** No event type of this name (or one hidden from the caller), or no subscription with this key. */
  notFound(kind: 'event' | 'subscription', detail: string): McpError {
    return this.error('NotFound', detail, { kind });
  }

  /** No principal where one is required, or the principal may not use these arguments. */
  forbidden(reason: string): McpError {
    return this.error('Forbidden', reason, { reason });
  }

  /** A quota is full. */
  resourceExhausted(limit: 'subscriptions' | 'streams' | 'verifications_per_host', max: number): McpError {
    return this.error('ResourceExhausted', `too many ${limit.replaceAll('_', ' ')} (at most ${max})`, { limit, max });
  }

  /** The event type does not offer this delivery mode (or the mode is not one). */
  unsupportedMode(value: string): McpError {
    return this.error('Unsupported', `the delivery mode ${JSON.stringify(value)} is not offered for this event type`, {
      feature: 'deliveryMode',
      value,
    });
  }

  /** The callback endpoint could not be verified (`reason`: a category, never what the endpoint said). */
  callbackEndpoint(reason: McpWebhookFailure): McpError {
    return this.error('CallbackEndpointError', `the callback endpoint did not consent to deliveries (${reason})`, {
      reason,
    });
  }

  /** The error object of a `terminated` frame or envelope for a type that was removed. */
  removedType(name: string): { code: number; message: string; data: Record<string, unknown> } {
    const error = this.notFound('event', `the event type ${name} no longer exists`);
    return { code: error.code, message: error.message, data: error.data as Record<string, unknown> };
  }

  private error(name: McpEventsErrorName, detail: string, data: Record<string, unknown>): McpError {
    return new McpError(this.profile.codes[name], `${name}: ${detail}`, data);
  }
}
