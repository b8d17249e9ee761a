import { Injectable } from '@nestjs/common';
import {
  CONTROLLER_WATERMARK,
  METHOD_METADATA,
  PARAMTYPES_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
  SSE_METADATA,
} from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type { RouteArgMetadata } from '../context/route-tool.binding.js';
import type { McpAppViewMetadata } from '../decorators/mcp-app-view.decorator.js';
import {
  MCP_APP_VIEW_METADATA,
  MCP_PARAM_ARGS_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_SCOPES_METADATA,
  MCP_TOOL_METADATA,
} from '../decorators/mcp-metadata.constants.js';
import type { McpPromptOptions } from '../decorators/mcp-prompt.decorator.js';
import type { McpResourceTemplateOptions } from '../decorators/mcp-resource-template.decorator.js';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';

type Method = (...args: unknown[]) => unknown;

/** The only place that reads the decorators' metadata back. */
@Injectable()
export class McpMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getToolOptions(method: Method): McpToolOptions | undefined {
    return this.reflector.get<McpToolOptions>(MCP_TOOL_METADATA, method);
  }

  getPromptOptions(method: Method): McpPromptOptions | undefined {
    return this.reflector.get<McpPromptOptions>(MCP_PROMPT_METADATA, method);
  }

  getResourceOptions(method: Method): McpResourceOptions | undefined {
    return this.reflector.get<McpResourceOptions>(MCP_RESOURCE_METADATA, method);
  }

  getResourceTemplateOptions(method: Method): McpResourceTemplateOptions | undefined {
    return this.reflector.get<McpResourceTemplateOptions>(MCP_RESOURCE_TEMPLATE_METADATA, method);
  }

  getAppViewOptions(method: Method): McpAppViewMetadata | undefined {
    return this.reflector.get<McpAppViewMetadata>(MCP_APP_VIEW_METADATA, method);
  }

  /** The scopes `@McpScopes` requires for `method` of `type`: the class's first, then the method's (unchecked). */
  getScopes(method: Method, type: Function): readonly string[] {
    const onClass = this.reflector.get<readonly string[] | undefined>(MCP_SCOPES_METADATA, type) ?? [];
    const onMethod = this.reflector.get<readonly string[] | undefined>(MCP_SCOPES_METADATA, method) ?? [];
    return [...onClass, ...onMethod];
  }

  /** Whether `method` of `type` is a route of a controller (`@Controller()` class, `@Get()`, `@Post()`… method). */
  isRoute(method: Method, type: Function): boolean {
    return (
      Reflect.hasOwnMetadata(CONTROLLER_WATERMARK, type) &&
      Reflect.hasMetadata(METHOD_METADATA, method) &&
      Reflect.hasMetadata(PATH_METADATA, method)
    );
  }

  /** Whether a route is a server-sent events route (`@Sse()`). */
  isSseRoute(method: Method): boolean {
    return Reflect.getMetadata(SSE_METADATA, method) === true;
  }

  /** The route parameter decorators of a method (`@Body()`, `@Param('id')`, custom ones…), keyed as Nest keys them. */
  getRouteParams(type: Function, methodName: string): Readonly<Record<string, RouteArgMetadata>> {
    return (
      (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, methodName) as Record<string, RouteArgMetadata> | undefined) ?? {}
    );
  }

  /** Whether a method has MCP parameter decorators (`@McpArgs()`, `@McpCtx()`…). */
  hasMcpParams(type: Function, methodName: string): boolean {
    const params = Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, type, methodName) as
      | Record<string, unknown>
      | undefined;
    return params !== undefined && Object.keys(params).length > 0;
  }

  /** The declared types of a method's parameters (`design:paramtypes`; empty without `emitDecoratorMetadata`). */
  getParamTypes(type: Function, methodName: string): readonly unknown[] {
    return (
      (Reflect.getMetadata(PARAMTYPES_METADATA, type.prototype as object, methodName) as unknown[] | undefined) ?? []
    );
  }
}
