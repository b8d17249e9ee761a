import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { RequestStateCodec } from '../mrtr/request-state.codec.js';
import type { McpEventReadFrom } from '../protocol/event-store.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import { McpError } from '../protocol/mcp.error.js';
import { SEAL_LABELS } from './events.constants.js';

/** What a cursor carries, sealed: the subscription it belongs to, a log position and when it was issued. */
interface CursorPayload {
  /** Event type name. */
  n: string;
  /** Hash of the canonical arguments. */
  a: string;
  /** Log position. */
  p: string;
  /** Present (1) when the position itself is still to be delivered (a webhook watermark). */
  i?: 1;
  /** Issued at, ms since the epoch. */
  t: number;
}

const invalidCursor = (reason: string) =>
  McpError.invalidParams(`Invalid params: invalid cursor (${reason})`, { reason });

/**
 * Events cursors (SEP-3415, "Cursor Lifecycle"): opaque to clients, sealed with the `requestState` keys under a label
 * of their own (AES-256-GCM; ADR 0004 for the keys), and bound to the subscription `(name, arguments)` they were
 * issued for. A cursor that does not open (altered, another server's, another label's), names another subscription,
 * or is older than `events.cursorTtlMs` is `-32602` with `data.reason`. A valid cursor whose events the log no longer
 * keeps is not an error: its reader answers `truncated: true`.
 */
@Injectable()
export class EventCursorCodec {
  constructor(
    private readonly sealer: RequestStateCodec,
    private readonly options: McpResolvedOptions,
  ) {}

  /** A cursor for a position of the log of `name`, for the subscription whose arguments hash to `argumentsHash`. */
  mint(name: string, argumentsHash: string, from: McpEventReadFrom): string {
    const payload: CursorPayload = {
      n: name,
      a: argumentsHash,
      p: from.position,
      t: Date.now(),
      ...(from.inclusive && { i: 1 as const }),
    };
    return this.sealer.sealAs(SEAL_LABELS.cursor, payload);
  }

  /**
   * The position a client's cursor stands for: `undefined` for `null` or absent (start from now); `-32602` for
   * anything that is not a cursor of this subscription.
   */
  open(cursor: unknown, name: string, argumentsHash: string): McpEventReadFrom | undefined {
    if (cursor === undefined || cursor === null) return undefined;
    if (typeof cursor !== 'string') throw McpError.invalidParams('Invalid params: cursor must be a string or null');
    const payload = this.sealer.openAs(SEAL_LABELS.cursor, cursor, invalidCursor);
    if (!isCursorPayload(payload)) throw invalidCursor('malformed');
    if (payload.n !== name || payload.a !== argumentsHash) throw invalidCursor('issued for another subscription');
    if (Date.now() - payload.t > this.options.events.cursorTtlMs)
      throw invalidCursor('expired: start again with cursor null');
    return { position: payload.p, inclusive: payload.i === 1 };
  }
}

function isCursorPayload(value: unknown): value is CursorPayload {
  return (
    isJsonObject(value) &&
    typeof value.n === 'string' &&
    typeof value.a === 'string' &&
    typeof value.p === 'string' &&
    typeof value.t === 'number'
  );
}
