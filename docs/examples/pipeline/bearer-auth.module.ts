import {
  Injectable,
  type MiddlewareConsumer,
  Module,
  type NestMiddleware,
  type NestModule,
  RequestMethod,
} from '@nestjs/common';
import { McpCtx, McpModule, McpTool, McpToolContext } from 'nest-mcp';

/** An HTTP request after authentication. */
export interface AuthedRequest {
  headers: Record<string, string | string[] | undefined>;
  user?: { sub: string };
}

/** A raw Node response, which is what Express and Fastify both give middleware. */
interface RawResponse {
  statusCode: number;
  setHeader(name: string, value: string): void;
  end(body?: string): void;
}

/** The tokens this example accepts; a real application verifies a JWT or asks its identity provider. */
const TOKENS: Readonly<Record<string, string>> = { 'token-of-alice': 'alice' };

// #region docs:bearer-middleware
/** Answers 401 with `WWW-Authenticate` unless the request carries a known bearer token; sets `request.user`. */
@Injectable()
export class BearerAuthMiddleware implements NestMiddleware {
  use(request: AuthedRequest, response: RawResponse, next: () => void): void {
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    const sub = token === undefined ? undefined : TOKENS[token];
    if (sub === undefined) {
      response.statusCode = 401;
      response.setHeader('WWW-Authenticate', 'Bearer');
      response.end();
      return;
    }
    request.user = { sub };
    next();
  }
}
// #endregion docs:bearer-middleware

@Injectable()
export class AgentTools {
  @McpTool({ description: 'Who is calling' })
  whoami(@McpCtx() ctx: McpToolContext): string {
    return ctx.principal ?? 'anonymous';
  }
}

// #region docs:bearer-auth
@Module({
  imports: [
    McpModule.forRoot({ name: 'agents', version: '1.0.0', principal: (req) => (req as AuthedRequest).user?.sub }),
  ],
  providers: [AgentTools],
})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(BearerAuthMiddleware).forRoutes({ path: 'mcp', method: RequestMethod.POST });
  }
}
// #endregion docs:bearer-auth
