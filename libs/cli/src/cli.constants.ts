/** The version `nest-mcp --version` prints and the CLI sends as its `clientInfo`. */
export const CLI_VERSION = '0.1.0';

/** The protocol revision the CLI pins (no `initialize` fallback). */
export const CLI_PROTOCOL_VERSION = '2026-07-28';

/** Default longest wait for a response, reset by every progress notification. */
export const CLI_DEFAULT_TIMEOUT_MS = 600_000;
