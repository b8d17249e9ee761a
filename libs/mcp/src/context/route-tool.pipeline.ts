import type { ExternalContextCreator } from '@nestjs/core';
import { callQuietlyWhenCancelled } from './handler-errors.util.js';
import { getMcpInvocationContext } from './mcp-invocation-context.js';
import { carryingMetadata } from './method-metadata.util.js';
import type { PrincipalDriftCheck } from './principal-drift.check.js';
import type { RouteToolBinding, RouteToolRequestParam } from './route-tool.binding.js';
import { RouteToolParamsFactory } from './route-tool-params.factory.js';

type Method = (...args: unknown[]) => unknown;
type PipelineFn = (...args: unknown[]) => Promise<unknown>;

/** Which part of the pipeline a wrapped route runs: as `McpHandlerFactory`'s modes. */
export type RouteToolMode = 'full' | 'unguarded' | 'guards';

/**
 * The key under which a route tool's piped parameters (`RouteToolBinding.piped`) are written on its controller, for
 * `ExternalContextCreator` to read.
 */
export const MCP_ROUTE_PIPED_ARGS_METADATA = 'nest-mcp:route-piped-args';

/** A `@Req()`, `@Headers()` or `@Ip()` parameter's value, read from the synthetic request (no pipe runs on it). */
function fromRequest(
  param: RouteToolRequestParam,
  request: { headers?: Record<string, unknown>; ip?: unknown },
): unknown {
  if (param.kind === 'request') return request;
  if (param.kind === 'ip') return request.ip;
  return param.name === undefined ? request.headers : request.headers?.[param.name.toLowerCase()];
}

/**
 * Runs a controller route as a tool with the route's own enhancers, as Nest's router would over HTTP: global,
 * controller and method guards, then interceptors, then pipes on `@Body`, `@Query`, `@Param` and custom parameters
 * (not on `@Req`, `@Headers`, `@Ip`), then the method. The context type is `'http'` and the arguments are
 * `[syntheticRequest, response, undefined]` (the HTTP response, or the call's `McpLocalResponse` off HTTP), so guards
 * written for the route see a request and a response, as on the HTTP path.
 * Exception filters do not run: they answer HTTP responses, and the call has none (the tool call maps the exception).
 *
 * Two `ExternalContextCreator` wrappers make this: the outer one runs guards and interceptors around a body that
 * calls the inner one, which only applies the pipes to the piped parameters and hands their values back; the body
 * then adds the request-read parameters and calls the method. (One wrapper would run the pipes on every parameter.)
 */
export class RouteToolPipeline {
  private readonly paramsFactory = new RouteToolParamsFactory();

  constructor(
    private readonly externalContextCreator: ExternalContextCreator,
    private readonly principalDrift?: PrincipalDriftCheck,
  ) {}

  wrap(instance: object, methodName: string, binding: RouteToolBinding, mode: RouteToolMode): PipelineFn {
    const method = (instance as Record<string, Method>)[methodName];
    const pipes = Object.keys(binding.piped).length === 0 ? undefined : this.pipesOf(instance, method, methodName);
    const body = carryingMetadata(method, async function (this: unknown, ...args: unknown[]) {
      const request = args[0] as object;
      const values: unknown[] = pipes ? [...((await pipes(...args)) as unknown[])] : [];
      values.length = binding.arity;
      for (const param of binding.fromRequest) values[param.index] = fromRequest(param, request);
      // `guards`: the pipes ran (a pipe may refuse), the method does not.
      if (mode === 'guards') return undefined;
      return callQuietlyWhenCancelled(
        method,
        this,
        values,
        () => getMcpInvocationContext(request)?.signal,
        `Route tool "${methodName}"`,
      );
    });
    const drift = mode === 'unguarded' ? undefined : this.principalDrift;
    const fn = this.externalContextCreator.create(
      instance,
      drift ? drift.guard(body) : body,
      methodName,
      // No parameter metadata: the body receives the pipeline's arguments as they are.
      undefined,
      undefined,
      undefined,
      undefined,
      { guards: mode !== 'unguarded', interceptors: mode !== 'guards', filters: false },
      'http',
    ) as PipelineFn;
    if (drift) return (...args) => drift.run(args[0], methodName, () => fn(...args));
    return fn;
  }

  /** The route's pipes on its piped parameters only: resolves with the method's arguments (the others left empty). */
  private pipesOf(instance: object, method: Method, methodName: string): PipelineFn {
    return this.externalContextCreator.create(
      instance,
      carryingMetadata(method, (...values: unknown[]) => values),
      methodName,
      MCP_ROUTE_PIPED_ARGS_METADATA,
      this.paramsFactory,
      undefined,
      undefined,
      { guards: false, interceptors: false, filters: false },
      'http',
    ) as PipelineFn;
  }
}
