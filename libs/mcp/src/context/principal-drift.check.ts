import { Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { carryingMetadata } from './method-metadata.util.js';

type Method = (...args: unknown[]) => unknown;

/** One handler run: its request, and who the `principal` option named before the guards. */
interface GuardedRun {
  readonly request: object;
  readonly before: string | undefined;
  readonly handler: string;
}

/**
 * Refuses a call whose identity a guard of its handler changed. The `principal` option is read once, before dispatch
 * (it binds `requestState`, 2025-11-25 sessions, tasks and the per-caller caps), so an identity that a guard of the
 * handler sets later (e.g. `req.user` from a Passport guard put on the tool) would otherwise be silently ignored: the
 * call would run as the earlier caller. Here the option is read again right after the handler's guards, before its
 * method; when it names someone else, the call fails with `-32603` (HTTP 500) and one error is logged saying where
 * the identity must be resolved.
 *
 * Only built when the `principal` option is set (with `auth`, the principal is the verified token's and no guard can
 * change it).
 */
export class PrincipalDriftCheck {
  private readonly runs = new AsyncLocalStorage<GuardedRun>();
  private readonly logger = new Logger('McpModule');
  private logged = false;

  constructor(private readonly resolve: (request: unknown) => string | undefined) {}

  /**
   * Runs a handler's pipeline (guards, interceptors, pipes, method) and remembers who the `principal` option names
   * for `request` right before it: the method's `guard`ed form compares with that.
   */
  run<T>(request: unknown, handler: string, pipeline: () => T): T {
    if (typeof request !== 'object' || request === null) return pipeline();
    return this.runs.run({ request, before: this.principalOf(request), handler }, pipeline);
  }

  /**
   * `method` preceded by the check, carrying the name and every metadata key of `method` (guards, interceptors and
   * `Reflector` read them from the handler Nest is given).
   */
  guard(method: Method): Method {
    const check = this;
    return carryingMetadata(method, function (this: unknown, ...args: unknown[]) {
      check.verify();
      return method.apply(this, args);
    });
  }

  private verify(): void {
    const run = this.runs.getStore();
    if (!run) return;
    const after = this.principalOf(run.request);
    if (after === run.before) return;
    if (!this.logged) {
      this.logged = true;
      this.logger.error(
        `A guard (or interceptor) of the MCP handler "${run.handler}" changed who the "principal" option names for the request ` +
          `(${run.before === undefined ? 'nobody' : 'one caller'} before the guards, ${after === undefined ? 'nobody' : 'another caller'} ` +
          'after), so the call was refused (logged once). nest-mcp resolves the caller once, before dispatch: it binds ' +
          'requestState, 2025-11-25 sessions, tasks and the per-caller limits to it. Resolve the identity before the MCP ' +
          "endpoint runs: in a middleware, in a global guard (APP_GUARD, which runs on the endpoint's HTTP route first), " +
          'or with the "auth" option (bearer tokens).',
      );
    }
    throw new McpError(
      McpErrorCode.InternalError,
      "Internal error: the caller's identity was changed by a guard of this handler after the call was dispatched; the " +
        'server must resolve it before dispatch (see the server log)',
      undefined,
      500,
    );
  }

  /** What the option says; a resolver that throws names nobody (the transport's own read would have failed first). */
  private principalOf(request: object): string | undefined {
    try {
      return this.resolve(request);
    } catch {
      return undefined;
    }
  }
}
