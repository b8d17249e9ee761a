import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';

/** The parts of the synthetic request (`routeToolRequest`) a piped route parameter reads. */
interface RouteToolRequest {
  readonly body?: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly params: Record<string, unknown>;
}

/**
 * Picks a piped route parameter's value (`@Body`, `@Query`, `@Param`, with or without a name) from the synthetic
 * request of a route tool, which is argument 0 of the pipeline, as Nest's router picks it from a real one.
 */
export class RouteToolParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    const request = args[0] as RouteToolRequest;
    const key = typeof data === 'string' ? data : undefined;
    switch (type as RouteParamtypes) {
      case RouteParamtypes.BODY:
        return key === undefined ? request.body : request.body?.[key];
      case RouteParamtypes.QUERY:
        return key === undefined ? request.query : request.query[key];
      case RouteParamtypes.PARAM:
        return key === undefined ? request.params : request.params[key];
      default:
        return undefined;
    }
  }
}
