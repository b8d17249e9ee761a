import { Injectable, type Type } from '@nestjs/common';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { MCP_PARAM_ARGS_METADATA } from '../decorators/mcp-metadata.constants.js';
import { McpParamType } from '../decorators/mcp-param-type.enum.js';
import { MCP_CONTEXT_TYPE } from './mcp-execution-context.js';
import type { McpHandler } from './mcp-handler.interface.js';
import { McpParamsFactory } from './mcp-params.factory.js';
import { MrtrContext } from './mrtr.context.js';

type HandlerFn = (...args: unknown[]) => Promise<unknown>;

/**
 * Wraps decorated provider methods with Nest's guards, interceptors, pipes and exception filters
 * (`ExternalContextCreator`, context type `'mcp'`). Singleton hosts are wrapped once at bootstrap; request-scoped
 * hosts are resolved per call with their own context id.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();

  constructor(
    private readonly externalContextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
  ) {}

  create(wrapper: InstanceWrapper, methodName: string): McpHandler {
    const prototype = Object.getPrototypeOf(wrapper.instance) as object;
    declareImplicitParams(prototype.constructor as Type, methodName);

    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const fn = this.wrap(wrapper.instance as object, methodName);
      return { invoke: (input, context) => fn(httpRequestOf(context), httpResponseOf(context), input, context) };
    }
    return {
      invoke: async (input, context) => {
        const request = httpRequestOf(context) ?? {};
        const contextId = ContextIdFactory.getByRequest(request as object);
        this.moduleRef.registerRequestByContextId(request, contextId);
        const instance = await this.moduleRef.resolve(wrapper.token as Type, contextId, { strict: false });
        return this.wrap(instance as object, methodName)(request, httpResponseOf(context), input, context);
      },
    };
  }

  private wrap(instance: object, methodName: string): HandlerFn {
    const callback = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
    return this.externalContextCreator.create(
      instance,
      callback,
      methodName,
      MCP_PARAM_ARGS_METADATA,
      this.paramsFactory,
      undefined,
      undefined,
      { guards: true, interceptors: true, filters: true },
      MCP_CONTEXT_TYPE,
    ) as HandlerFn;
  }
}

const httpRequestOf = (context: MrtrContext): unknown => (context as unknown as { scope: { httpRequest?: unknown } }).scope.httpRequest;
const httpResponseOf = (context: MrtrContext): unknown =>
  (context as unknown as { scope: { httpResponse?: unknown } }).scope.httpResponse;

/**
 * Lets handlers skip the parameter decorators: without any, the first parameter typed with a context class gets
 * the context, and the first other parameter gets the input. Written once as ordinary parameter metadata.
 */
function declareImplicitParams(target: Type, methodName: string): void {
  if (Reflect.hasMetadata(MCP_PARAM_ARGS_METADATA, target, methodName)) return;
  const paramTypes: unknown[] = Reflect.getMetadata('design:paramtypes', target.prototype, methodName) ?? [];
  const arity = Math.max(paramTypes.length, (target.prototype[methodName] as (...args: unknown[]) => unknown).length);
  const metadata: Record<string, { index: number; data?: string; pipes: unknown[] }> = {};
  let inputAssigned = false;
  let contextAssigned = false;
  for (let index = 0; index < arity; index++) {
    const type = paramTypes[index];
    const isContext = typeof type === 'function' && (type === MrtrContext || type.prototype instanceof MrtrContext);
    if (isContext && !contextAssigned) {
      metadata[`${McpParamType.CONTEXT}:${index}`] = { index, pipes: [] };
      contextAssigned = true;
    } else if (!inputAssigned) {
      metadata[`${McpParamType.ARGS}:${index}`] = { index, pipes: [] };
      inputAssigned = true;
    } else if (!contextAssigned) {
      metadata[`${McpParamType.CONTEXT}:${index}`] = { index, pipes: [] };
      contextAssigned = true;
    }
  }
  Reflect.defineMetadata(MCP_PARAM_ARGS_METADATA, metadata, target, methodName);
}
