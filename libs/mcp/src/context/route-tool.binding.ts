/**
 * Where a controller route's parameter reads its value on the MCP path. `body`, `query` and `param` are the tool's
 * arguments (named, or the whole rest); `request`, `headers` and `ip` come from the synthetic request, which no pipe
 * runs on (as over HTTP).
 */
export type RouteToolSource = 'body' | 'query' | 'param';

/** A parameter taken from the tool's arguments by name: `@Param('id')` reads the argument `id`. */
export interface RouteToolNamedArgument {
  readonly source: RouteToolSource;
  readonly name: string;
}

/** A parameter that pipes do not run on, filled from the synthetic request: `@Req()`, `@Headers(name?)`, `@Ip()`. */
export interface RouteToolRequestParam {
  readonly index: number;
  readonly kind: 'request' | 'headers' | 'ip';
  /** `@Headers('x-name')`: the header's name. */
  readonly name?: string;
}

/** One entry of Nest's route parameter metadata (`ROUTE_ARGS_METADATA`), as the route decorators write it. */
export interface RouteArgMetadata {
  readonly index: number;
  readonly data?: unknown;
  readonly pipes: readonly unknown[];
  readonly factory?: unknown;
}

/**
 * How a controller route that is also a tool (`@McpTool()` beside `@Get()`…) takes its parameters from a `tools/call`,
 * worked out once at bootstrap (discovery's route reader) and used on every call by the handler factory.
 */
export interface RouteToolBinding {
  /** The whole object (`@Body()`, `@Query()` or `@Param()`) that receives the arguments no parameter names. */
  readonly rest?: RouteToolSource;
  /** Parameters that read one argument by name. */
  readonly named: readonly RouteToolNamedArgument[];
  /** `@Req()`, `@Headers()`, `@Ip()`: set from the synthetic request after the pipes, like Nest's router does. */
  readonly fromRequest: readonly RouteToolRequestParam[];
  /**
   * The route's parameter metadata that pipes run on (`@Body`, `@Query`, `@Param` and custom decorators), keyed as Nest
   * keys it: the pipeline hands it to `ExternalContextCreator` so global, controller, method and parameter pipes apply.
   */
  readonly piped: Readonly<Record<string, RouteArgMetadata>>;
  /** How many parameters the method has. */
  readonly arity: number;
}
