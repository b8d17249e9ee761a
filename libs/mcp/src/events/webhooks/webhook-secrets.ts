import { Injectable } from '@nestjs/common';
import { RequestStateCodec } from '../../mrtr/request-state.codec.js';
import { isJsonObject } from '../../protocol/json-object.util.js';
import { SEAL_LABELS } from '../events.constants.js';

/**
 * Webhook secrets at rest (SEP-3415 "Secret generation"; docs/events.md, "Security"): sealed with the `requestState`
 * keys (AES-256-GCM) under a label of their own before they reach a store or a queue, opened only to sign a POST.
 * They are never logged and never part of any answer.
 */
@Injectable()
export class WebhookSecrets {
  constructor(private readonly sealer: RequestStateCodec) {}

  seal(secret: string): string {
    return this.sealer.sealAs(SEAL_LABELS.secret, { s: secret });
  }

  /** The secret in clear; undefined when the sealed value does not open (keys rotated away). */
  open(sealed: string): string | undefined {
    try {
      const payload = this.sealer.openAs(SEAL_LABELS.secret, sealed, (reason) => new Error(reason));
      return isJsonObject(payload) && typeof payload.s === 'string' ? payload.s : undefined;
    } catch {
      return undefined;
    }
  }
}
