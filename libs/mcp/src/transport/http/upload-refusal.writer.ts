import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { McpError } from '../../protocol/mcp.error.js';
import { errorResponse } from '../../server/mcp.dispatcher.js';
import { DISCARD_LIMIT_FACTOR, DISCARD_MAX_BYTES, DISCARD_MAX_MS } from './raw-body.constants.js';
import { challengeHeaders } from '../../protocol/access-token.interface.js';
import { jsonHeaders } from './response.writer.js';

/** 413 (`-32600`): the body is over `maxBodyBytes`, by its declared length or as it was read. */
export function payloadTooLarge(limit: number): McpError {
  return new McpError(
    McpErrorCode.InvalidRequest,
    `Payload Too Large: the body exceeds ${limit} bytes`,
    undefined,
    413,
  );
}

/**
 * Answers a POST refused before its body was read — Host/Origin (403), the bearer check (400/401, with its
 * `WWW-Authenticate`), a busy verifier (503, with `Retry-After`), a body over the limit (413) — as nginx's lingering
 * close does: the answer goes out at once with `Connection: close` and no id (none was read), the rest of the upload
 * is read and thrown away, and the response ends — closing the connection — when the client has sent it all. Closing
 * at once would leave the client writing into a closed socket: its TCP stack resets the connection, and fetch or the
 * official MCP client report ECONNRESET / EPIPE instead of the answer that was already on its way.
 *
 * The discard is bounded: at most `DISCARD_LIMIT_FACTOR` × `limit` bytes (capped at `DISCARD_MAX_BYTES`) for at most
 * `DISCARD_MAX_MS`; past either, the connection is closed then and there. Nothing is buffered.
 */
export function refuseUpload(upload: Readable, response: ServerResponse, error: McpError, limit: number): void {
  const answer = errorResponse(undefined, error);
  const payload = JSON.stringify(answer);
  response.shouldKeepAlive = false;
  response.removeHeader('X-Powered-By');
  response.writeHead(error.httpStatus, jsonHeaders(error.httpStatus, answer, payload, challengeHeaders(error)));
  // Written but not ended: Node closes the socket of a `Connection: close` response as soon as it ends.
  response.write(payload);
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
  // Its own bound, not `closeAfterDeadline`: that one cuts connections relative to the shutdown deadline, while this
  // limits what one refused client may make the server read, from the refusal on, whether or not the server closes
  // (and a closing server still cuts this connection with the others at its deadline).
  const deadline = setTimeout(onGone, DISCARD_MAX_MS).unref();
  upload.on('data', onData);
  upload.on('end', onEnd);
  upload.on('error', onGone);
  upload.on('close', onGone);
  upload.resume();
}
