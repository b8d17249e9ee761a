/**
 * A JSON-RPC error the server answered with (a protocol error, not an `isError` tool result).
 *
 * @example
 * ```ts
 * await expect(client.callTool('nope')).rejects.toMatchObject({ code: -32602, httpStatus: 200 });
 * ```
 */
export class McpTestingError extends Error {
  constructor(
    /** The JSON-RPC error code, e.g. `-32602`. */
    readonly code: number,
    message: string,
    /** The error's `data`, when the server sent some. */
    readonly data: unknown,
    /** The HTTP status the error came with (200 once a response was streaming); in-process, the one HTTP would use. */
    readonly httpStatus: number,
    /** The method of the request that failed. */
    readonly method: string,
    /**
     * The `WWW-Authenticate` challenge of an authorization refusal (401, or 403 `insufficient_scope` from
     * `@McpScopes`): over HTTP the response header, in-process the value HTTP would send.
     */
    readonly wwwAuthenticate?: string,
  ) {
    super(message);
    this.name = 'McpTestingError';
  }
}
