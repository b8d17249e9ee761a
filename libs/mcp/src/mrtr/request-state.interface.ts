import type { JsonValue } from '../protocol/json-rpc.interface.js';

/** What a sealed `requestState` carries between rounds (internal; compact keys keep it small). */
export interface RequestStatePayload {
  /** Method of the original request. */
  m: string;
  /** Target: tool or prompt name, or resource URI. */
  t: string;
  /** Digest of the original params (without `_meta`, `inputResponses`, `requestState`). */
  d: string;
  /** Answers accepted so far, by key. */
  a: Record<string, unknown>;
  /** Keys asked in the round that issued this state (answers to other keys are ignored). */
  p: string[];
  /** Issued at, epoch milliseconds. */
  iat: number;
  /** The principal the state is bound to, if any. */
  sub?: string;
  /** The round that issued this state (1: the first call); absent in states sealed before it was carried (read as 1). */
  r?: number;
  /** The handler's own state (`ctx.requestState`), when it attached one. */
  s?: JsonValue;
}
