import type { RawBody } from './raw-body.reader.js';
import type { HttpCaller } from './request-gate.service.js';

/** The body of an MCP POST as captured before any framework body parser ran. */
export interface CapturedBody {
  raw: RawBody;
  /** The Content-Type the client sent. */
  contentType?: string;
  /** The Content-Encoding the client sent; only identity is supported. */
  contentEncoding?: string;
  /** With `auth`: the caller of the bearer token, verified before the body was read (`McpRequestGate`). */
  caller?: HttpCaller;
  /** `performance.now()` when the capture took the request, before its first check; only while telemetry can record. */
  receivedAt?: number;
  /** Fastify: the body headers taken away while Fastify would parse, put back before the handler runs. */
  hidden?: Partial<Record<'content-type' | 'content-length' | 'transfer-encoding' | 'content-encoding', string>>;
}
