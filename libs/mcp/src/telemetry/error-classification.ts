/**
 * JSON-RPC codes a server span records without marking itself failed: the caller sent something wrong, the server
 * did its job (genai semantic conventions `model/mcp/common.yaml`, PR #404). The list there names the 2025-era codes;
 * the 2026-07-28 ones that are plainly the caller's (`-32020` header mismatch, `-32021` missing client capability,
 * `-32022` unsupported version), the 2025 URL-elicitation request `-32042` and the Events extension's not-found,
 * forbidden and unsupported codes are added (docs/observability.md, "Errors"; ADR 0031). `-32603`, resource
 * exhaustion and anything else stay errors.
 */
export const CLIENT_ERROR_CODES: ReadonlySet<number> = new Set([
  -32700, // Parse error
  -32600, // Invalid Request
  -32601, // Method not found
  -32602, // Invalid params
  -32002, // 2025-11-25 resource not found
  -32020, // header mismatch
  -32021, // missing required client capability
  -32022, // unsupported protocol version
  -32042, // 2025-11-25 URL elicitation required (a request for input)
  -32023, // Events: not found
  -32024, // Events: forbidden
  -32026, // Events: unsupported
  -32011, // Events (sketch profile): not found
  -32012, // Events (sketch profile): forbidden
  -32014, // Events (sketch profile): unsupported
]);

/** Whether a JSON-RPC error code on a server span is the server's failure (`error.type` and ERROR status). */
export function isServerError(code: number, extraClientCodes: ReadonlySet<number> | undefined): boolean {
  return !CLIENT_ERROR_CODES.has(code) && !(extraClientCodes?.has(code) ?? false);
}
