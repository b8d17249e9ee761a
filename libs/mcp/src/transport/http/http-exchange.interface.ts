import type { IncomingMessage, ServerResponse } from 'node:http';

/** The HTTP objects of one exchange: the raw Node pair, and the framework's request (handed to guards). */
export interface HttpExchange {
  request: IncomingMessage;
  response: ServerResponse;
  frameworkRequest: unknown;
  frameworkResponse: unknown;
}
