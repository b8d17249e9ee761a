import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpError } from '../protocol/mcp.error.js';

const VERSION = 'v1';
const AAD_LABEL = 'nest-mcp/requestState/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 4;
/** Larger states are rejected before any crypto work. */
const MAX_STATE_CHARS = 256 * 1024;

interface Key {
  id: Buffer;
  secret: Buffer;
}

const invalidState = (reason: string) => McpError.invalidParams(`Invalid requestState: ${reason}`);

/** A state that opened: what it carries, and an id unique to this sealing (its key id and random IV). */
export interface OpenedRequestState {
  payload: unknown;
  id: string;
}

/** `//a/b/` → `/a/b`. */
function normalizePath(path: string): string {
  const collapsed = path.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

/**
 * Seals and opens `requestState` with AES-256-GCM (ADR 0004): confidential and tamper-evident, so a client can
 * neither read nor alter what the server carried between rounds. The first key seals; every key opens (rotation).
 * Format: `v1.<base64url(keyId | iv | ciphertext | tag)>`.
 *
 * The associated data names the server (`name`) and its endpoint (global prefix + `path`): two servers that share
 * keys — or two endpoints of one application — cannot open each other's states, which fail like altered ones.
 */
@Injectable()
export class RequestStateCodec {
  private readonly logger = new Logger('RequestStateCodec');
  private readonly keys: readonly Key[];
  /** Built on first use, per label: the global prefix is set after the providers are created. */
  private readonly aad = new Map<string, Buffer>();

  constructor(
    private readonly options: McpResolvedOptions,
    @Inject(MCP_MODULE_OPTIONS_EXTRAS) private readonly extras: McpModuleExtras,
    // Absent in a standalone application context (stdio): no global prefix there.
    @Optional() private readonly applicationConfig?: ApplicationConfig,
  ) {
    const secrets = options.requestStateKeys.map((encoded, index) => {
      const secret = Buffer.from(encoded, 'base64');
      if (secret.length !== 32) {
        throw new Error(`McpModule: requestState.keys[${index}] must be 32 bytes of base64 (openssl rand -base64 32)`);
      }
      return secret;
    });
    if (secrets.length === 0) {
      this.logger.warn(
        'No requestState key configured: using a random per-process key. Multi-round requests will fail across ' +
          'replicas or restarts; set McpModule options requestState.keys in production.',
      );
      secrets.push(randomBytes(32));
    }
    this.keys = secrets.map((secret) => ({
      id: createHash('sha256').update(secret).digest().subarray(0, KEY_ID_BYTES),
      secret,
    }));
  }

  seal(payload: object): string {
    return this.sealToken(AAD_LABEL, payload);
  }

  /**
   * Seals another kind of server-issued token with the same keys, under its own `label` (events cursors, webhook
   * secrets at rest): a token of one label never opens under another, nor as a `requestState`.
   */
  sealAs(label: string, payload: object): string {
    return this.sealToken(label, payload);
  }

  /**
   * Opens a token sealed with `sealAs(label, …)`; anything that does not verify (malformed, another label, another
   * server, altered) throws `invalid(reason)`.
   */
  openAs(label: string, token: unknown, invalid: (reason: string) => Error): unknown {
    return this.openToken(label, token, invalid).payload;
  }

  /**
   * A key of 32 bytes derived from the first sealing key for `label` (HMAC-SHA256 of the label): stable while the
   * first key is, and useless for opening anything (events: keyed subscription ids).
   */
  derivedKey(label: string): Buffer {
    return createHmac('sha256', this.keys[0].secret).update(label).digest();
  }

  private sealToken(label: string, payload: object): string {
    const key = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
    cipher.setAAD(this.associatedData(label));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    const token = `${VERSION}.${Buffer.concat([key.id, iv, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
    // Never issue a state that open() would refuse: the flow could not finish.
    if (token.length > MAX_STATE_CHARS) {
      throw McpError.invalidParams('Invalid params: the answers are too large to carry to the next round');
    }
    return token;
  }

  /** Opens a state; anything that does not verify is `-32602`. */
  open(token: unknown): unknown {
    return this.openState(token).payload;
  }

  /** Opens a state and tells its id (for single-use stores); anything that does not verify is `-32602`. */
  openState(token: unknown): OpenedRequestState {
    return this.openToken(AAD_LABEL, token, invalidState);
  }

  private openToken(label: string, token: unknown, invalid: (reason: string) => Error): OpenedRequestState {
    if (typeof token !== 'string' || token.length > MAX_STATE_CHARS || !token.startsWith(`${VERSION}.`)) {
      throw invalid('malformed');
    }
    const bytes = Buffer.from(token.slice(VERSION.length + 1), 'base64url');
    if (bytes.length < KEY_ID_BYTES + IV_BYTES + TAG_BYTES + 1) throw invalid('malformed');
    const keyId = bytes.subarray(0, KEY_ID_BYTES);
    const key = this.keys.find((candidate) => candidate.id.equals(keyId));
    if (!key) throw invalid('not issued by this server');
    const iv = bytes.subarray(KEY_ID_BYTES, KEY_ID_BYTES + IV_BYTES);
    const ciphertext = bytes.subarray(KEY_ID_BYTES + IV_BYTES, bytes.length - TAG_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.secret, iv);
      decipher.setAAD(this.associatedData(label));
      decipher.setAuthTag(tag);
      const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      return { payload: JSON.parse(plaintext), id: bytes.subarray(0, KEY_ID_BYTES + IV_BYTES).toString('base64url') };
    } catch {
      throw invalid('integrity check failed');
    }
  }

  /** The label, the server name and the endpoint path, JSON-encoded so that no two triples give the same bytes. */
  private associatedData(label: string): Buffer {
    let aad = this.aad.get(label);
    if (!aad) {
      const prefix = this.applicationConfig?.getGlobalPrefix() ?? '';
      const endpoint = normalizePath(`/${prefix}/${this.extras.path ?? '/mcp'}`);
      aad = Buffer.from(JSON.stringify([label, this.options.serverInfo.name, endpoint]));
      this.aad.set(label, aad);
    }
    return aad;
  }
}
