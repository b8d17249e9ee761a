import { Controller, Delete, Get, Post, Req, Res, SetMetadata, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpExchange } from './http-exchange.interface.js';
import { McpHttpTransport } from './mcp-http.transport.js';
import { FASTIFY_ROUTE_CONFIG_METADATA, MCP_CAPTURED_ROUTE } from './raw-body.constants.js';
import { MCP_ENDPOINT_METADATA } from '../../decorators/mcp-metadata.constants.js';

type FrameworkRequest = IncomingMessage | { raw: IncomingMessage };
type FrameworkResponse = ServerResponse | { raw: ServerResponse; hijack: () => void };

/** Express hands Node's objects; Fastify wraps them (and must be told that the reply is written by hand). */
function exchangeOf(request: FrameworkRequest, response: FrameworkResponse): HttpExchange {
  if ('hijack' in response && typeof response.hijack === 'function') response.hijack();
  const raw = 'raw' in response && response.raw ? response.raw : (response as ServerResponse);
  // Express announces itself on every response; the endpoint's answers name no framework. The rest of the app is
  // left as configured (`app.disable('x-powered-by')` covers it).
  raw.removeHeader('X-Powered-By');
  return {
    request: 'raw' in request && request.raw ? request.raw : (request as IncomingMessage),
    response: raw,
    frameworkRequest: request,
    frameworkResponse: response,
  };
}

/**
 * Builds the endpoint's controller for a path. A class per module import, so that two MCP endpoints can live in
 * one application. Guards, interceptors and middleware that apply to HTTP routes apply here too.
 */
export function createMcpHttpController(path: string): Type {
  @Controller(path)
  @SetMetadata(MCP_ENDPOINT_METADATA, path)
  class McpHttpController {
    constructor(private readonly transport: McpHttpTransport) {}

    // The marker by which the body capture finds this route in the router (see BodyCaptureInstaller).
    @Post()
    @SetMetadata(MCP_CAPTURED_ROUTE, path)
    @SetMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { [MCP_CAPTURED_ROUTE]: path })
    post(@Req() request: FrameworkRequest, @Res() response: FrameworkResponse): Promise<void> {
      return this.transport.handlePost(exchangeOf(request, response));
    }

    @Get()
    get(@Req() request: FrameworkRequest, @Res() response: FrameworkResponse): Promise<void> {
      return this.transport.handleOtherVerb(exchangeOf(request, response), 'GET');
    }

    @Delete()
    delete(@Req() request: FrameworkRequest, @Res() response: FrameworkResponse): Promise<void> {
      return this.transport.handleOtherVerb(exchangeOf(request, response), 'DELETE');
    }
  }
  return McpHttpController;
}
