import type { CallRequest } from '../server/call-request.interface.js';
import type { LegacySession } from './legacy-session.js';

/** A call of a 2025-11-25 session, for the call runner: the session stands in for the 2026 per-request `_meta`. */
export interface LegacyCallRequest extends CallRequest {
  readonly session: LegacySession;
}
