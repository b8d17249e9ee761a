/** The initialize-based revisions served on the legacy wire, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** The version offered when a client asks `initialize` for one this server does not speak. */
export const LATEST_LEGACY_VERSION = LEGACY_PROTOCOL_VERSIONS[0];

/** JSON-RPC code of "resource not found" on the legacy wire (retired in 2026-07-28). */
export const LEGACY_RESOURCE_NOT_FOUND = -32002;
