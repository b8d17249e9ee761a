/** Characters kept of each `clientInfo` field a session keeps (`name`, `version`, `title`); longer values are cut. */
export const MAX_CLIENT_INFO_FIELD_LENGTH = 256;

/**
 * Bytes the subscribed URIs of one session may take together (counted as for the session budget): room for the
 * 1,000 subscriptions of the 2026 listen filter bound at 256 characters each, so that one session (and one caller,
 * through its session cap) cannot take the whole `maxSessionBytes` with a few long URIs.
 */
export const MAX_SUBSCRIPTION_BYTES_PER_SESSION = 256 * 1024;

/**
 * What a session costs before its strings, in bytes, for the `maxSessionBytes` budget: the session object, its id,
 * maps and sets (measured: about 1 KiB on Node 20; doubled for what a busy session adds).
 */
export const SESSION_BASE_BYTES = 2048;

/** What one kept string costs beyond its characters (string header, set or object entry), in bytes. */
export const STRING_ENTRY_BYTES = 64;

/**
 * `Retry-After` of a refused `initialize`, in seconds. A slot comes back when a session ends (DELETE, idle expiry), so
 * retrying at once rarely helps; clients that hold their share should end a session first.
 */
export const SESSION_RETRY_AFTER_SECONDS = 30;
