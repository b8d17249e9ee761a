import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { DISCARD_LIMIT_FACTOR, DISCARD_MAX_BYTES, DISCARD_MAX_MS } from './raw-body.constants.js';

/**
 * Answers 413 (JSON-RPC `-32600`) to an upload refused before it was all read, as nginx's lingering close does: the
 * answer goes out at once with `Connection: close`, the rest of the upload is read and thrown away, and the response
 * ends — closing the connection — when the client has sent it all. Closing at once would leave the client writing
 * into a closed socket: its TCP stack resets the connection, and fetch or the official MCP client report
 * ECONNRESET / EPIPE instead of the answer that was already on its way.
 *
 * The discard is bounded: at most `DISCARD_LIMIT_FACTOR` × `limit` bytes (capped at `DISCARD_MAX_BYTES`) for at most
 * `DISCARD_MAX_MS`; past either, the connection is closed then and there.
 */
export function refuseUpload(upload: Readable, response: ServerResponse, limit: number): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: McpErrorCode.InvalidRequest, message: `Payload Too Large: the body exceeds ${limit} bytes` },
  });
  response.shouldKeepAlive = false;
  response.removeHeader('X-Powered-By');
  response.writeHead(413, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  // Written but not ended: Node closes the socket of a `Connection: close` response as soon as it ends.
  response.write(body);
  if (upload.readableEnded) {
    response.end();
    return;
  }
  const maxBytes = Math.min(DISCARD_LIMIT_FACTOR * limit, DISCARD_MAX_BYTES);
  let discarded = 0;
  const stop = (cut: boolean) => {
    clearTimeout(deadline);
    upload.off('data', onData);
    upload.off('end', onEnd);
    upload.off('error', onGone);
    upload.off('close', onGone);
    if (cut) response.destroy();
    else response.end();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxBytes) stop(true);
  };
  const onEnd = () => stop(false);
  const onGone = () => stop(true);
  const deadline = setTimeout(onGone, DISCARD_MAX_MS).unref();
  upload.on('data', onData);
  upload.on('end', onEnd);
  upload.on('error', onGone);
  upload.on('close', onGone);
  upload.resume();
}
