/** Where one registry state lives in Redis (`RedisRegistryState`). */
export interface RegistryKeys {
  /** The hash of records (entry key → JSON). */
  readonly records: string;
  /** The token every commit moves on (`<epoch>:<revision>`). */
  readonly token: string;
  /** The channel each commit is announced on. */
  readonly channel: string;
}

/**
 * The keys of the registry state under `prefix` (the module's `keyPrefix`), in the part `scope` names:
 * `<prefix>:registry` with no scope (a server without `include`), `<prefix>:registry:server:<name>` for
 * `scope = ['server', name]`. The token is the records' key with `:token`; the channel is the records' key.
 * @internal
 */
export function registryKeys(prefix: string, ...scope: readonly string[]): RegistryKeys {
  const records = [prefix, 'registry', ...scope].join(':');
  return Object.freeze({ records, token: `${records}:token`, channel: records });
}
