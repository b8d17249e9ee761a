import { Injectable } from '@nestjs/common';
import { MCP_APPS_EXTENSION } from '../apps/apps.constants.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpExtension, McpExtensionView } from './extension.interface.js';

/**
 * MCP Apps (`io.modelcontextprotocol/ui`, ext-apps spec 2026-01-26) as an extension of the server: no methods of its
 * own (a view is a `ui://` resource, a tool names it in `_meta.ui`: apps/), only its advertisement — no server
 * settings are defined, and it is advertised (the extension asks both sides to) once a tool the caller may see has a
 * view. Served on both wires: a 2025-11-25 host learns it from `initialize`.
 */
@Injectable()
export class McpAppsExtension implements McpExtension {
  readonly id = MCP_APPS_EXTENSION;
  readonly legacy = {};

  advertise(view: McpExtensionView): JsonObject | undefined {
    return view.tools.some((tool) => tool.app !== undefined) ? {} : undefined;
  }
}
