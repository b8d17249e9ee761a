import type { JsonObject } from '../protocol/json-rpc.interface.js';

/** How a call ended, as telemetry records it: the runner's outcome, read structurally. */
export type TelemetryOutcome =
  | { readonly ok: true; readonly result: JsonObject }
  | { readonly ok: false; readonly error: { readonly code: number; readonly message: string } };
