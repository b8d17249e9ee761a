import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from '../protocol/json-rpc.interface.js';
import type { McpTestingCallOptions } from './mcp-testing-options.interface.js';

/** How a {@link McpTestingClient} reaches the server: through the dispatcher in-process, or over real HTTP. */
export type McpTestingMode = 'in-process' | 'http';

/** @internal One request as the client hands it to a transport (`params._meta` already built). */
export interface TestingExchange {
  message: JsonRpcRequest;
  options: Pick<McpTestingCallOptions, 'headers' | 'user' | 'principal' | 'caller' | 'request' | 'signal'>;
  /** Called for every notification of this request, as it arrives. */
  onNotification(notification: JsonRpcNotification): void;
}

/** @internal The final response of a request and the HTTP status it came (or would come) with. */
export interface TestingReply {
  response: JsonRpcResultResponse | JsonRpcErrorResponse;
  httpStatus: number;
  /** The `WWW-Authenticate` challenge of an authorization refusal (over HTTP the header; in-process the one HTTP would send). */
  wwwAuthenticate?: string;
}

/** @internal Sends one request and resolves with its final response; rejects with the abort reason when cancelled. */
export interface TestingTransport {
  readonly mode: McpTestingMode;
  send(exchange: TestingExchange): Promise<TestingReply>;
}
