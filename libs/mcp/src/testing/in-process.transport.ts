import type { INestApplicationContext } from '@nestjs/common';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { CallCancellation } from '../protocol/call-cancellation.js';
import type { JsonRpcNotification } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { parseRequestMeta } from '../protocol/request-meta.parser.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { McpCallTracker } from '../server/call.tracker.js';
import { errorResponse, McpDispatcher } from '../server/mcp.dispatcher.js';
import { lowerCaseKeys, standardHeaders } from './mcp-headers.util.js';
import type { TestingExchange, TestingReply, TestingTransport } from './testing-transport.interface.js';

/**
 * @internal Runs requests through the application's own `McpDispatcher`, as the HTTP transport does after its wire
 * checks: the scope carries a plain request object (`{ method, url, headers, body, user?, … }`) where the HTTP
 * request would be, so guards, interceptors, pipes and filters see it as `args[0]`. The response channel is read the
 * way the HTTP writer reads it: notifications, then the final response, whose HTTP status is the one HTTP would use.
 */
export class InProcessTestingTransport implements TestingTransport {
  readonly mode = 'in-process';

  private constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly options: McpResolvedOptions,
    private readonly calls: McpCallTracker | undefined,
    private readonly path: string,
  ) {}

  static from(app: INestApplicationContext): InProcessTestingTransport {
    const find = <T>(token: unknown): T | undefined => {
      try {
        return app.get(token as string, { strict: false }) as T;
      } catch {
        return undefined;
      }
    };
    const dispatcher = find<McpDispatcher>(McpDispatcher);
    const options = find<McpResolvedOptions>(McpResolvedOptions);
    if (!dispatcher || !options) {
      throw new Error('McpTestingClient: this module has no McpModule; import McpModule.forRoot(...) in the module under test');
    }
    const path = find<McpModuleExtras>(MCP_MODULE_OPTIONS_EXTRAS)?.path ?? '/mcp';
    return new InProcessTestingTransport(dispatcher, options, find<McpCallTracker>(McpCallTracker), path);
  }

  send({ message, options, onNotification }: TestingExchange): Promise<TestingReply> {
    const request = {
      method: 'POST',
      url: this.path,
      headers: { ...standardHeaders(message), ...lowerCaseKeys(options.headers) },
      body: message,
      ...options.request,
      ...(options.user !== undefined && { user: options.user }),
    };
    const cancellation = new CallCancellation();
    const channel = new ResponseChannel();
    return new Promise<TestingReply>((resolve, reject) => {
      let streaming = false;
      channel.messages$.subscribe((sent) => {
        if (sent.type === 'notification' && !('id' in sent.message)) {
          streaming = true;
          onNotification(sent.message as JsonRpcNotification);
        } else if (sent.type === 'response') {
          // Over HTTP a response after a notification is an SSE frame of a 200 stream.
          resolve({ response: sent.message, httpStatus: streaming ? 200 : sent.httpStatus });
        }
      });
      // The test cancelling is the client going away: nothing more reaches it, and the handler's signal aborts.
      const cancel = () => {
        channel.abandon();
        cancellation.abort(options.signal!.reason);
        reject(options.signal!.reason);
      };
      if (options.signal?.aborted) return cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });

      const run = async () => {
        try {
          const scope: McpRequestScope = {
            id: message.id,
            method: message.method,
            params: message.params ?? {},
            meta: parseRequestMeta(message.params),
            cancellation,
            channel,
            httpRequest: request,
            principal: options.principal ?? this.options.principal?.(request),
          };
          const tracked = this.calls?.track(message.id, channel, cancellation, { timeout: message.method !== 'subscriptions/listen' });
          try {
            await this.dispatcher.dispatch(scope);
          } finally {
            if (tracked) this.calls!.untrack(tracked);
          }
        } catch (error) {
          if (!(error instanceof McpError)) throw error;
          channel.respond(errorResponse(message.id, error), error.httpStatus);
        } finally {
          options.signal?.removeEventListener('abort', cancel);
        }
      };
      run().catch(reject);
    });
  }
}
