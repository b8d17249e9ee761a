/**
 * A tool argument mirrored into an `Mcp-Param-{Name}` header (`x-mcp-header`; spec 2026-07-28: server/tools,
 * "x-mcp-header"): found in a tool's input schema by discovery, checked against a request's headers by the HTTP
 * transport.
 */
export interface ParamHeaderBinding {
  /** The header as declared, e.g. `Region`. */
  name: string;
  /** The lower-case HTTP header, e.g. `mcp-param-region`. */
  header: string;
  /** The argument's path from the root through `properties` keys. */
  path: readonly string[];
  type: 'string' | 'integer' | 'boolean';
}
