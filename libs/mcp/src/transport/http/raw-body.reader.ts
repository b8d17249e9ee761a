import type { Readable } from 'node:stream';

/** The outcome of reading a request body with a size limit. */
export type RawBody = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

const TOO_LARGE: RawBody = { ok: false, reason: 'too-large' };
const ABORTED: RawBody = { ok: false, reason: 'aborted' };

/**
 * Reads the whole body from `upload` (the request, or the stream a Fastify `preParsing` hook hands on) up to `limit`
 * bytes, then calls `done` once. A body over the limit — by its declared Content-Length, or found while reading — is
 * reported at once, with the rest of the upload still arriving: the caller answers 413 and discards it
 * (`refuseUpload`). Nothing past the limit is buffered. A callback rather than a promise: it runs on every MCP POST.
 */
export function readRawBody(
  upload: Readable,
  contentLength: string | undefined,
  limit: number,
  done: (body: RawBody) => void,
): void {
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > limit) {
    done(TOO_LARGE);
    return;
  }
  // The client left while the checks before the body ran (a token being verified): no event will come any more.
  if (upload.destroyed) {
    done(ABORTED);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (result: RawBody) => {
    upload.off('data', onData);
    upload.off('end', onEnd);
    upload.off('error', onError);
    upload.off('aborted', onError);
    done(result);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      chunks.length = 0;
      finish(TOO_LARGE);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => finish({ ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
  const onError = () => finish(ABORTED);
  upload.on('data', onData);
  upload.on('end', onEnd);
  upload.on('error', onError);
  upload.on('aborted', onError);
}
