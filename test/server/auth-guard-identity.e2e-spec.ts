import type { INestApplication, LoggerService } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { GuardIdentityModule, IdentityProbe } from '../fixtures/guard-identity.fixture.js';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { mcpPost, type RawResponse } from '../support/raw-request.util.js';
import { expectError, expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Issue #17, item 5 ("the principal resolver runs once, before dispatch; a guard that sets identity later is either
 * supported or refused with a clear message — no silent ignore"), over HTTP on both adapters: the `principal` option
 * is read again after a handler's guards; a guard that changed the identity gets the call refused (500 / -32603,
 * the handler never runs) and one error in the log; identities resolved before dispatch (a global guard) work.
 */

/** Keeps every error line. */
class ErrorLogger implements LoggerService {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  error(message: unknown): void {
    this.errors.push(String(message));
  }
}

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(
  adapter: AdapterName,
  globalLogin: boolean,
): Promise<{ url: URL; logger: ErrorLogger; probe: IdentityProbe }> {
  const moduleRef = await Test.createTestingModule({ imports: [GuardIdentityModule.serve({ globalLogin })] }).compile();
  const logger = new ErrorLogger();
  app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger })
      : moduleRef.createNestApplication({ logger });
  await app.listen(0, '127.0.0.1');
  const url = new URL(`${(await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1')}/mcp`);
  return { url, logger, probe: app.get(IdentityProbe) };
}

const call = (url: URL, name: string, login?: string): Promise<RawResponse> =>
  mcpPost(url, { method: 'tools/call', params: { name, arguments: {} }, headers: login ? { 'x-login': login } : {} });

describe.each(ADAPTERS)('identity set by a guard of the handler (%s)', (adapter) => {
  it('refuses the call (500 / -32603) before the handler runs, and logs why once', async () => {
    const { url, logger, probe } = await start(adapter, false);
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = expectError(await call(url, 'guardedWhoami', 'alice'), 500, -32603);
      expect(error.message).toMatch(/identity was changed by a guard of this handler.*resolve it before dispatch/);
    }
    expect(probe.runs).toEqual([]);
    const drift = logger.errors.filter((line) => line.includes('changed who the "principal" option names'));
    expect(drift).toHaveLength(1);
    expect(drift[0]).toMatch(/"guardedWhoami"/);
    expect(drift[0]).toMatch(/middleware.*global guard.*"auth" option/);
    // The identity itself is never logged.
    expect(drift[0]).not.toContain('alice');
  });

  it('a guard that changes nothing (no login header) and a tool without guards are served', async () => {
    const { url, probe } = await start(adapter, false);
    expect(textOf(expectResult(await call(url, 'guardedWhoami'), 'tools/call'))).toBe('principal=none');
    expect(textOf(expectResult(await call(url, 'whoami', 'alice'), 'tools/call'))).toBe('principal=none');
    expect(probe.runs).toEqual([
      { tool: 'guardedWhoami', principal: undefined },
      { tool: 'whoami', principal: undefined },
    ]);
  });

  it('an identity resolved before dispatch (a global guard, which runs on the HTTP route first) reaches every handler', async () => {
    const { url, logger, probe } = await start(adapter, true);
    // The tool's own guard sets the same identity again: no change, no refusal.
    expect(textOf(expectResult(await call(url, 'guardedWhoami', 'alice'), 'tools/call'))).toBe('principal=alice');
    expect(textOf(expectResult(await call(url, 'whoami', 'bob'), 'tools/call'))).toBe('principal=bob');
    expect(probe.runs.map((run) => run.principal)).toEqual(['alice', 'bob']);
    expect(logger.errors).toEqual([]);
  });
});
