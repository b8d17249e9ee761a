/** The protocol revision this library speaks natively (the stateless wire). */
export const LATEST_PROTOCOL_VERSION = '2026-07-28';

/** Every revision the stateless wire accepts in `_meta` / `MCP-Protocol-Version`. */
export const STATELESS_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION];

/**
 * Every revision the server implements, newest first (as listed in `supportedVersions` and in `-32022`): the
 * stateless wire, then 2025-11-25, served to clients that `initialize` a session on the same endpoint.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-11-25'];

const STATELESS = new Set(STATELESS_PROTOCOL_VERSIONS);

/** Whether `version` is a revision of the stateless wire (`STATELESS_PROTOCOL_VERSIONS`): the one place it is asked. */
export function isStatelessVersion(version: unknown): boolean {
  return typeof version === 'string' && STATELESS.has(version);
}
