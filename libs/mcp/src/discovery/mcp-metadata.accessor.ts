import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { McpAppViewMetadata } from '../decorators/mcp-app-view.decorator.js';
import {
  MCP_APP_VIEW_METADATA,
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
}
