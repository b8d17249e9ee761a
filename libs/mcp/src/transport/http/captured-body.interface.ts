import type { RawBody } from './raw-body.reader.js';

/** The body of an MCP POST as captured before any framework body parser ran. */
export interface CapturedBody {
  raw: RawBody;
  /** The Content-Type the client sent (the Fastify capture rewrites the header for the framework's parser). */
  contentType?: string;
  /** The Content-Encoding the client sent; only identity is supported. */
  contentEncoding?: string;
}
