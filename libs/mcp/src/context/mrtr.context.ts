import type { McpClientCapabilities, McpImplementation } from '../protocol/mcp-wire.interface.js';
import type { McpRequestScope } from './mcp-request-scope.interface.js';

/**
 * What every handler of `tools/call`, `prompts/get` and `resources/read` can use while it runs: the identity of
 * the call, the client's per-request capabilities, cancellation, and (see the progress and elicitation guides)
 * progress emitters and elicitation.
 */
export class MrtrContext {
  /** @internal */
  constructor(
    /** @internal */ protected readonly scope: McpRequestScope,
    private readonly name: string,
  ) {}

  /** The name of the tool or prompt, or the URI (template) of the resource being served. */
  handlerName(): string {
    return this.name;
  }

  /** Aborts when the client disconnects or the server shuts down; pass it on to I/O you start. */
  get signal(): AbortSignal {
    return this.scope.signal;
  }

  /** The JSON-RPC id of this request. */
  get requestId(): string | number {
    return this.scope.id;
  }

  /** The protocol version this request was sent with. */
  get protocolVersion(): string {
    return this.scope.meta.protocolVersion;
  }

  /** What the client declared it can do, for this request only. */
  get clientCapabilities(): McpClientCapabilities {
    return this.scope.meta.clientCapabilities;
  }

  /** The client's self-description; display only, never a basis for security decisions. */
  get clientInfo(): McpImplementation | undefined {
    return this.scope.meta.clientInfo;
  }

  /** The whole `_meta` object of the request (trace context, extension keys…). */
  get requestMeta(): Readonly<Record<string, unknown>> {
    return this.scope.meta.raw;
  }

  /** The authenticated caller, if a principal source is configured. */
  get principal(): string | undefined {
    return this.scope.principal;
  }
}
