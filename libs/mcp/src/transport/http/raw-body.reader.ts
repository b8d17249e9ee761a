import type { IncomingMessage } from 'node:http';

/** The outcome of reading a request body with a size limit. */
export type RawBody = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * Reads the whole body up to `limit` bytes, then calls `done` once. Past the limit the rest is drained and discarded
 * (memory stays bounded, and the client still gets a proper 413 instead of a reset connection). A callback rather
 * than a promise: it runs on every MCP POST.
 */
export function readRawBody(request: IncomingMessage, limit: number, done: (body: RawBody) => void): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    // Refused on its declared length alone: answer now and drop the upload (the connection closes after).
    request.resume();
    done({ ok: false, reason: 'too-large' });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  const finish = (result: RawBody) => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onError);
    request.off('aborted', onError);
    done(result);
  };
  const onData = (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size > limit) {
      tooLarge = true;
      chunks.length = 0;
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => finish(tooLarge ? { ok: false, reason: 'too-large' } : { ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
  const onError = () => finish({ ok: false, reason: 'aborted' });
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
  request.on('aborted', onError);
}
