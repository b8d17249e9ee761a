import { Injectable, type Type } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ContextIdFactory, ExternalContextCreator, ModuleRef, ModulesContainer } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { MCP_PARAM_ARGS_METADATA } from '../decorators/mcp-metadata.constants.js';
import { McpParamType } from '../decorators/mcp-param-type.enum.js';
import type { McpAroundHandler, McpHandlerCall } from '../protocol/mcp-handler-call.interface.js';
import { controllerAwareContextCreator } from './controller-aware.context-creator.js';
import { MCP_CONTEXT_TYPE } from './mcp-execution-context.js';
import type { McpHandler } from './mcp-handler.interface.js';
import { callQuietlyWhenCancelled, noteNestLogged } from './handler-errors.util.js';
import { carryingMetadata } from './method-metadata.util.js';
import { McpParamsFactory } from './mcp-params.factory.js';
import { MrtrContext } from './mrtr.context.js';
import { PrincipalDriftCheck } from './principal-drift.check.js';
import type { McpToolContext } from './mcp-tool.context.js';
import type { RouteToolBinding } from './route-tool.binding.js';
import { MCP_ROUTE_PIPED_ARGS_METADATA, RouteToolPipeline } from './route-tool.pipeline.js';
import { routeToolRequest } from './route-tool.request.js';

type HandlerFn = (...args: unknown[]) => Promise<unknown>;

/** Which part of the pipeline a wrapped handler runs (see `McpHandlerFactory.wrap`). */
type PipelineMode = 'full' | 'unguarded' | 'guards';

/** A function that does nothing but carries every metadata key of `method` (guards read them from the handler). */
function standIn(method: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return carryingMetadata(method, async () => undefined);
}

/**
 * `method`, whose failure after its call was cancelled is quiet: neither Nest's exceptions handler nor the library
 * logs it (`quietWhenCancelled`). Only a method that takes its context (parameter `contextIndex`) can see
 * `ctx.signal`, so only such a method is wrapped: the others, and their calls, cost nothing more.
 */
function cancellationAware(
  method: (...args: unknown[]) => unknown,
  methodName: string,
  contextIndex: number | undefined,
): (...args: unknown[]) => unknown {
  if (contextIndex === undefined) return method;
  const signalOf = (args: unknown[]) => (args[contextIndex] as MrtrContext | undefined)?.signal;
  const label = `Handler "${methodName}"`;
  return carryingMetadata(method, function (this: unknown, ...args: unknown[]) {
    return callQuietlyWhenCancelled(method, this, args, signalOf, label);
  });
}

/** The index of the parameter that receives the context (`@McpCtx()` or a parameter typed with one), if any. */
function contextParamIndex(target: object, methodName: string): number | undefined {
  const params: Record<string, { index: number }> =
    Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, target, methodName) ?? {};
  const key = Object.keys(params).find((name) => name.startsWith(`${McpParamType.CONTEXT}:`));
  return key === undefined ? undefined : params[key].index;
}

/**
 * Wraps decorated provider methods with Nest's guards, interceptors, pipes and exception filters
 * (`ExternalContextCreator`, context type `'mcp'`), and controller routes that are tools with the route's own
 * enhancers (`RouteToolPipeline`, context type `'http'`). Singleton hosts are wrapped once at bootstrap;
 * request-scoped hosts are resolved per call with their own context id.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();
  /** With the `principal` option: refuses a call whose identity a guard of its handler changed. */
  private readonly principalDrift?: PrincipalDriftCheck;
  /** The `aroundHandler` option: wraps every pipeline run. */
  private readonly aroundHandler?: McpAroundHandler;
  /** Controller routes that are also tools. */
  private readonly routes: RouteToolPipeline;

  /** Nest's creator, made to find the module of controllers too (their guards, interceptors and pipes live there). */
  private readonly externalContextCreator: ExternalContextCreator;

  constructor(
    externalContextCreator: ExternalContextCreator,
    modules: ModulesContainer,
    private readonly moduleRef: ModuleRef,
    options: McpResolvedOptions,
  ) {
    this.externalContextCreator = controllerAwareContextCreator(externalContextCreator, modules);
    if (options.principal) this.principalDrift = new PrincipalDriftCheck(options.principal);
    this.aroundHandler = options.aroundHandler;
    this.routes = new RouteToolPipeline(this.externalContextCreator, this.principalDrift);
  }

  create(wrapper: InstanceWrapper, methodName: string): McpHandler {
    const prototype = Object.getPrototypeOf(wrapper.instance) as object;
    declareImplicitParams(prototype.constructor as Type, methodName);
    return this.handler(
      wrapper,
      (instance, mode) => this.wrap(instance, methodName, mode),
      (input, context) => [context.httpRequest, context.httpResponse, input, context],
    );
  }

  /**
   * A controller route that is also a tool (`@McpTool()` beside `@Get()`…), run as `binding` says: each call gets a
   * synthetic request made from the tool's arguments (`routeToolRequest`), and the route's own guards, interceptors and
   * pipes (`RouteToolPipeline`).
   */
  createRoute(wrapper: InstanceWrapper, methodName: string, binding: RouteToolBinding): McpHandler {
    const prototype = Object.getPrototypeOf(wrapper.instance) as object;
    Reflect.defineMetadata(MCP_ROUTE_PIPED_ARGS_METADATA, binding.piped, prototype.constructor, methodName);
    return this.handler(
      wrapper,
      (instance, mode) => this.routes.wrap(instance, methodName, binding, mode),
      (input, context) => [
        routeToolRequest(context.httpRequest, input, binding, context as McpToolContext),
        context.httpResponse,
        undefined,
      ],
    );
  }

  /**
   * The handler of a method wrapped by `wrapFor`, called with `argsOf(input, context)`. Singleton hosts are wrapped
   * once (the task modes on first use: only task tools need them); request-scoped hosts are resolved per call with the
   * call's request (argument 0) as their `REQUEST`.
   */
  private handler(
    wrapper: InstanceWrapper,
    wrapFor: (instance: object, mode: PipelineMode) => HandlerFn,
    argsOf: (input: unknown, context: MrtrContext) => unknown[],
  ): McpHandler {
    const handler = this.pipelineHandler(wrapper, wrapFor, argsOf);
    const around = this.aroundHandler;
    if (!around) return handler;
    // Decided once per handler: without the option a call pays nothing for it.
    return {
      invoke: (input, context) => around(handlerCall(context), () => handler.invoke(input, context)),
      authorize: (input, context) =>
        around(handlerCall(context), () => handler.authorize!(input, context)).then(() => undefined),
    };
  }

  private pipelineHandler(
    wrapper: InstanceWrapper,
    wrapFor: (instance: object, mode: PipelineMode) => HandlerFn,
    argsOf: (input: unknown, context: MrtrContext) => unknown[],
  ): McpHandler {
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const instance = wrapper.instance as object;
      const fn = wrapFor(instance, 'full');
      let unguarded: HandlerFn | undefined;
      let guards: HandlerFn | undefined;
      return {
        invoke: (input, context) =>
          (context.taskAuthorized ? (unguarded ??= wrapFor(instance, 'unguarded')) : fn)(...argsOf(input, context)),
        authorize: async (input, context) => {
          await (guards ??= wrapFor(instance, 'guards'))(...argsOf(input, context));
        },
      };
    }
    const run = async (input: unknown, context: MrtrContext, mode: PipelineMode) => {
      const args = argsOf(input, context);
      const request = (args[0] ??= {}) as object;
      const contextId = ContextIdFactory.getByRequest(request);
      this.moduleRef.registerRequestByContextId(request, contextId);
      const instance = await this.moduleRef.resolve(wrapper.token as Type, contextId, { strict: false });
      return wrapFor(instance as object, mode)(...args);
    };
    return {
      invoke: (input, context) => run(input, context, context.taskAuthorized ? 'unguarded' : 'full'),
      authorize: async (input, context) => {
        await run(input, context, 'guards');
      },
    };
  }

  /**
   * The method in Nest's pipeline. `full`: guards, interceptors, pipes, filters. `unguarded`: the same without guards
   * (a task's rounds, authorized when the task was created). `guards`: guards and pipes around a stand-in that
   * carries the method's metadata (so `Reflector` reads the same), without running the method.
   */
  private wrap(instance: object, methodName: string, mode: PipelineMode = 'full'): HandlerFn {
    const method = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
    const drift = mode === 'unguarded' ? undefined : this.principalDrift;
    const target =
      mode === 'guards'
        ? standIn(method)
        : cancellationAware(method, methodName, contextParamIndex(instance.constructor, methodName));
    // Checked after the guards (and interceptors), before the method: the identity must not change once dispatched.
    const callback = drift ? drift.guard(target) : target;
    const fn = this.externalContextCreator.create(
      instance,
      callback,
      methodName,
      MCP_PARAM_ARGS_METADATA,
      this.paramsFactory,
      undefined,
      undefined,
      { guards: mode !== 'unguarded', interceptors: mode !== 'guards', filters: mode !== 'guards' },
      MCP_CONTEXT_TYPE,
    ) as HandlerFn;
    const noteAndRethrow = (error: unknown): never => {
      noteNestLogged(error);
      throw error;
    };
    if (drift) return (...args) => drift.run(args[0], methodName, () => fn(...args)).catch(noteAndRethrow);
    return (...args) => fn(...args).catch(noteAndRethrow);
  }
}

/** What `aroundHandler` is told about one run. */
function handlerCall(context: MrtrContext): McpHandlerCall {
  const traceIds = context.traceIds();
  return {
    method: context.method,
    name: context.handlerName(),
    requestId: context.requestId,
    callerKey: context.callerKey,
    ...(context.principal !== undefined && { principal: context.principal }),
    ...(context.accessToken !== undefined && { accessToken: context.accessToken }),
    ...(context.taskId !== undefined && { taskId: context.taskId }),
    ...(traceIds !== undefined && { traceIds }),
  };
}

/**
 * Completes a handler's parameter metadata (once per method): parameters without a decorator that are typed with a
 * context class get the context, and the first other undecorated one gets the input when no `@McpArgs` is used.
 * Nest's own `createParamDecorator` decorators are carried over, so they work on MCP handlers too (their factory
 * receives an execution context whose arguments are `[httpRequest, httpResponse, input, context]`).
 */
function declareImplicitParams(target: Type, methodName: string): void {
  const declared: Record<string, ParamMetadata> =
    Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, target, methodName) ?? {};
  const routeParams: Record<string, ParamMetadata> = Reflect.getMetadata(ROUTE_ARGS_METADATA, target, methodName) ?? {};
  const metadata: Record<string, ParamMetadata> = { ...declared };
  for (const [key, param] of Object.entries(routeParams)) {
    if (key.includes(CUSTOM_ROUTE_ARGS_METADATA)) metadata[key] = param;
  }
  const taken = new Set(Object.values(metadata).map((param) => param.index));
  const hasInput = Object.keys(metadata).some((key) => key.startsWith(`${McpParamType.ARGS}:`));
  const paramTypes: unknown[] = Reflect.getMetadata('design:paramtypes', target.prototype, methodName) ?? [];
  const arity = Math.max(paramTypes.length, (target.prototype[methodName] as (...args: unknown[]) => unknown).length);
  let inputAssigned = hasInput;
  let contextAssigned = Object.keys(metadata).some((key) => key.startsWith(`${McpParamType.CONTEXT}:`));
  for (let index = 0; index < arity; index++) {
    if (taken.has(index)) continue;
    const type = paramTypes[index];
    const isContext = typeof type === 'function' && (type === MrtrContext || type.prototype instanceof MrtrContext);
    if (isContext) {
      metadata[`${McpParamType.CONTEXT}:${index}`] = { index, pipes: [] };
      contextAssigned = true;
    } else if (!inputAssigned) {
      metadata[`${McpParamType.ARGS}:${index}`] = { index, pipes: [] };
      inputAssigned = true;
    } else if (!contextAssigned && (type === undefined || type === Object)) {
      // An untyped parameter after the input is the context, as in `(args, ctx) => …` written without types.
      metadata[`${McpParamType.CONTEXT}:${index}`] = { index, pipes: [] };
      contextAssigned = true;
    }
  }
  Reflect.defineMetadata(MCP_PARAM_ARGS_METADATA, metadata, target, methodName);
}

interface ParamMetadata {
  index: number;
  data?: unknown;
  pipes: unknown[];
  factory?: unknown;
}
