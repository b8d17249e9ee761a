import type { LoggerService } from '@nestjs/common';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type CompactJWSHeaderParameters,
  type CryptoKey,
  type FlattenedJWSInput,
  type RemoteJWKSet,
} from 'jose';

/** The authorization server's keys could not be had (network, timeout, bad document); the token is not judged. */
export class SigningKeysUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningKeysUnavailableError';
  }
}

/** Timing of a `RemoteKeySource`. */
export interface RemoteKeySourceSettings {
  /** Longest wait for one fetch (metadata or key set), in milliseconds. */
  readonly timeoutMs: number;
  /** Minimum time between two key-set fetches caused by an unknown key id, in milliseconds. */
  readonly cooldownMs: number;
  /** How long a fetched key set is used before it is fetched again, in milliseconds. */
  readonly maxAgeMs: number;
  /** After a failure, tokens are refused without another attempt for this long, in milliseconds. */
  readonly retryAfterFailureMs: number;
}

/** Keys at rest: the errors of a key set that was fetched fine but has no (single) key for the token. */
const KEY_SET_ANSWERS = [errors.JWKSNoMatchingKey, errors.JWKSMultipleMatchingKeys, errors.JOSENotSupported];

/**
 * The signing keys of one authorization server, for jose's `jwtVerify`: its JWKS, located once (from the configured
 * `jwksUri`, or from the issuer's metadata) and then kept by jose's remote key set, which fetches it again when its
 * copy is older than `maxAgeMs`, or when a token names a key id it does not know and the last fetch is older than
 * `cooldownMs` (that is how a rotation is picked up).
 *
 * Fails closed: when the keys cannot be fetched, `getKey` rejects with `SigningKeysUnavailableError`. For
 * `retryAfterFailureMs` after a failure nothing is fetched (an outage does not turn every request into a fetch): a
 * token whose key is in a copy younger than `maxAgeMs` is still verified with it, any other is refused. One warning
 * is logged when an outage starts and one line when the keys are back.
 */
export class RemoteKeySource {
  private keySet: Promise<RemoteJWKSet> | undefined;
  /** The remote key set once located, to read its copy during an outage. */
  private located: RemoteJWKSet | undefined;
  /** That copy as a local key set, built at the first use after a failure. */
  private snapshot: ReturnType<typeof createLocalJWKSet> | undefined;
  private unavailableUntil = 0;
  private lastFailure = '';
  private down = false;

  constructor(
    /** What the keys belong to, for the log (e.g. the issuer). */
    private readonly owner: string,
    /** Where the JWKS is: resolves with its URL, or rejects when that cannot be known yet. */
    private readonly locate: () => Promise<URL>,
    private readonly settings: RemoteKeySourceSettings,
    private readonly logger: Pick<LoggerService, 'warn' | 'log'>,
  ) {}

  /** A `JWTVerifyGetKey` for jose: the key the token's header (`kid`, `alg`) names. */
  readonly getKey = async (header: CompactJWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (Date.now() < this.unavailableUntil) return this.fromCopy(header, token);
    try {
      const key = await (await this.remoteKeySet())(header, token);
      this.recovered();
      return key;
    } catch (error) {
      if (KEY_SET_ANSWERS.some((kind) => error instanceof kind)) {
        this.recovered();
        throw error;
      }
      throw this.failed(error);
    }
  };

  /** During an outage: the key from the last fetched copy while it is younger than `maxAgeMs`, never a fetch. */
  private async fromCopy(header: CompactJWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const jwks = this.located?.fresh ? this.located.jwks() : undefined;
    if (jwks) {
      this.snapshot ??= createLocalJWKSet(jwks);
      try {
        return await this.snapshot(header, token);
      } catch (error) {
        if (error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      }
    }
    throw new SigningKeysUnavailableError(`the keys of ${this.owner} are unavailable: ${this.lastFailure}`);
  }

  private remoteKeySet(): Promise<RemoteJWKSet> {
    this.keySet ??= this.locate().then(
      (url) =>
        (this.located = createRemoteJWKSet(url, {
          timeoutDuration: this.settings.timeoutMs,
          cooldownDuration: this.settings.cooldownMs,
          cacheMaxAge: this.settings.maxAgeMs,
        })),
      (error: unknown) => {
        this.keySet = undefined;
        throw error;
      },
    );
    return this.keySet;
  }

  private failed(error: unknown): SigningKeysUnavailableError {
    this.lastFailure = error instanceof Error ? error.message : String(error);
    this.snapshot = undefined;
    this.unavailableUntil = Date.now() + this.settings.retryAfterFailureMs;
    if (!this.down) {
      this.down = true;
      this.logger.warn(
        `The signing keys of ${this.owner} could not be fetched (${this.lastFailure}); bearer tokens it issued are ` +
          'refused until they can be',
      );
    }
    return new SigningKeysUnavailableError(`the keys of ${this.owner} are unavailable: ${this.lastFailure}`, {
      cause: error,
    });
  }

  private recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.log(`The signing keys of ${this.owner} are available again`);
  }
}
