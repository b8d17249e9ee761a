import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_EVENT_METADATA } from './events.constants.js';
import type { McpEventOptions } from './mcp-event.decorator.js';

/** The only place that reads `@McpEvent` metadata back. */
@Injectable()
export class McpEventMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The options of `@McpEvent` on a method, if any. */
  getEventOptions(method: Function): McpEventOptions | undefined {
    return this.reflector.get<McpEventOptions | undefined>(MCP_EVENT_METADATA, method);
  }
}
