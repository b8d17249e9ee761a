import { createHash } from 'node:crypto';
import { isTextual, mimeTypeOf } from './skill-mime.util.js';

/** Decodes UTF-8 strictly, keeping a byte order mark, so that encoding the text again gives the very same bytes. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * One file of a skill, as served: its bytes, their `sha256:` digest and size (SEP-2640, "Integrity"), its MIME type,
 * and the text it is served as (`text` content) when it is textual and valid UTF-8 — otherwise it is a `blob`. The
 * digest and size are of exactly the bytes a host gets back: the UTF-8 encoding of `text`, or the decoded `blob`.
 */
export class SkillFile {
  /** `sha256:` and 64 lowercase hex digits of `bytes`. */
  readonly digest: string;
  readonly size: number;
  readonly mimeType: string;
  /** The content as text (a `text` content item); undefined: served as a base64 `blob`. */
  readonly text?: string;

  constructor(
    /** Where the file sits below its skill's root, `/`-separated (`references/GUIDE.md`). */
    readonly path: string,
    /** Its `skill://` URI. */
    readonly uri: string,
    readonly bytes: Uint8Array,
  ) {
    this.digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    this.size = bytes.byteLength;
    let decoded: string | undefined;
    try {
      decoded = UTF8.decode(bytes);
    } catch {
      decoded = undefined;
    }
    this.mimeType = mimeTypeOf(path.slice(path.lastIndexOf('/') + 1), decoded);
    // A SKILL.md (text/markdown) is always text: the builder refuses one that is not valid UTF-8.
    this.text = decoded !== undefined && isTextual(this.mimeType) ? decoded : undefined;
  }

  /** The `resources/read` contents of the file. */
  contents(): { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string } {
    if (this.text !== undefined) return { uri: this.uri, mimeType: this.mimeType, text: this.text };
    return {
      uri: this.uri,
      mimeType: this.mimeType,
      blob: Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64'),
    };
  }
}
