import type { IncomingMessage } from 'node:http';

/** The outcome of reading a request body with a size limit. */
export type RawBody = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * Reads the whole body up to `limit` bytes. Past the limit the rest is drained and discarded (memory stays
 * bounded, and the client still gets a proper 413 instead of a reset connection).
 */
export function readRawBody(request: IncomingMessage, limit: number): Promise<RawBody> {
  const declared = Number(request.headers['content-length']);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    if (tooLarge) {
      // Refused on its declared length alone: answer now and drop the upload (the connection closes after).
      request.resume();
      resolve({ ok: false, reason: 'too-large' });
      return;
    }
    const finish = (result: RawBody) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
      resolve(result);
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
    const onEnd = () => finish(tooLarge ? { ok: false, reason: 'too-large' } : { ok: true, body: Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, reason: 'aborted' });
    const onAborted = () => finish({ ok: false, reason: 'aborted' });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}
