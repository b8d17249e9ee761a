import { Agent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { WireRequest } from './wire.js';

/** Plain `node:http` client calls: one JSON answer, one streamed answer read frame by frame, and held-open streams. */

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });
/** Many concurrent long-lived streams, each on its own socket. */
const streams = new Agent({ keepAlive: false, maxSockets: Infinity });

export interface JsonAnswer {
  status: number;
  text: string;
  json: unknown;
  ms: number;
}

function send(
  url: string,
  wire: WireRequest,
  agent: Agent,
  onResponse: (response: IncomingMessage) => void,
  onError: (error: Error) => void,
): ClientRequest {
  const outgoing = httpRequest(
    url,
    { method: 'POST', agent, headers: { ...wire.headers, 'content-length': String(Buffer.byteLength(wire.body)) } },
    onResponse,
  );
  outgoing.on('error', onError);
  outgoing.end(wire.body);
  return outgoing;
}

export function postJson(url: string, wire: WireRequest, timeoutMs = 30_000): Promise<JsonAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      wire,
      keepAlive,
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, text, json, ms: performance.now() - started });
        });
      },
      reject,
    );
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
  });
}

export interface StreamAnswer {
  status: number;
  contentType: string;
  /** Progress notification frames received. */
  notifications: number;
  /** The last `progress` value seen. */
  lastProgress: number;
  /** The final JSON-RPC response (last non-notification frame), parsed. */
  final: unknown;
  /** Request sent → body ended. */
  ms: number;
  /** Request sent → first progress frame. */
  firstFrameMs: number;
}

const PROGRESS_MARK = '"method":"notifications/progress"';
const PROGRESS_VALUE = /"progress":(\d+(?:\.\d+)?)/;

/**
 * POSTs a call whose answer streams, and counts the progress frames as they arrive. Frames are recognised by text
 * (no JSON parse per notification) so the client costs as little CPU as possible; the final response is parsed.
 */
export function streamCall(url: string, wire: WireRequest, timeoutMs = 120_000): Promise<StreamAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      wire,
      keepAlive,
      (response) => {
        let buffer = '';
        let notifications = 0;
        let lastFrame = '';
        let lastProgressFrame = '';
        let firstFrameMs = Number.NaN;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let boundary = buffer.indexOf('\n\n');
          while (boundary !== -1) {
            const frame = buffer.slice(0, boundary);
            buffer = buffer.slice(boundary + 2);
            if (frame.includes(PROGRESS_MARK)) {
              if (notifications === 0) firstFrameMs = performance.now() - started;
              notifications++;
              lastProgressFrame = frame;
            } else if (frame.includes('data:')) {
              lastFrame = frame;
            }
            boundary = buffer.indexOf('\n\n');
          }
        });
        response.on('error', reject);
        response.on('end', () => {
          const ms = performance.now() - started;
          const contentType = String(response.headers['content-type'] ?? '');
          const text = contentType.startsWith('text/event-stream') ? lastFrame || buffer : buffer;
          const data = text
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('');
          let final: unknown;
          try {
            final = JSON.parse(data || text);
          } catch {
            final = undefined;
          }
          const lastProgress = Number(PROGRESS_VALUE.exec(lastProgressFrame)?.[1] ?? Number.NaN);
          resolve({
            status: response.statusCode ?? 0,
            contentType,
            notifications,
            lastProgress,
            final,
            ms,
            firstFrameMs,
          });
        });
      },
      reject,
    );
    outgoing.setTimeout(timeoutMs, () =>
      outgoing.destroy(new Error(`stream from ${url} did not end within ${timeoutMs} ms`)),
    );
  });
}

export interface HeldStream {
  /** The first frame (the acknowledgement of a listen stream). */
  firstFrame: string;
  close(): void;
}

/** Opens a streamed POST, resolves once its first frame arrived, and keeps it open until `close()`. */
export function openHeldStream(url: string, wire: WireRequest, timeoutMs = 30_000): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const outgoing = send(
      url,
      wire,
      streams,
      (response) => {
        if (!String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          settled = true;
          response.resume();
          reject(new Error(`expected an SSE stream, got ${response.statusCode} ${response.headers['content-type']}`));
          return;
        }
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (settled) return; // keep-alives after the acknowledgement: read and dropped
          buffer += chunk;
          const boundary = buffer.indexOf('\n\n');
          if (boundary === -1) return;
          settled = true;
          clearTimeout(timer);
          resolve({ firstFrame: buffer.slice(0, boundary), close: () => outgoing.destroy() });
        });
        response.on('error', () => undefined);
      },
      (error) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          reject(error);
        }
      },
    );
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      outgoing.destroy();
      reject(new Error(`no first frame from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
  });
}

export function closeClientAgents(): void {
  keepAlive.destroy();
  streams.destroy();
}
