import { applyDecorators } from '@nestjs/common';
import { McpScopes } from 'nest-mcp';
import { OPS_AUTH } from './ops-auth.config.js';

/**
 * `@McpScopes(...scopes)` when the console runs with authorization (`AUTH_ISSUER`), nothing otherwise.
 *
 * The console runs both ways, and without `auth` nest-mcp fails closed: an HTTP caller has no token, so a handler with
 * `@McpScopes` would be hidden from everyone. An application that always runs with authorization writes
 * `@McpScopes('ops:write')` directly.
 */
export const OpsScopes = (...scopes: string[]): ClassDecorator & MethodDecorator =>
  OPS_AUTH ? McpScopes(...scopes) : applyDecorators();
