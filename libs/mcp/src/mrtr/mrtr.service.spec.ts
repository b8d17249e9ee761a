import { ApplicationConfig } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { AnswerLedger } from './answer-ledger.js';
import { InMemoryRequestStateStore } from './in-memory-request-state.store.js';
import { McpToolContext } from '../context/mcp-tool.context.js';
import { McpInput } from './input-request.builders.js';
import { McpMrtrService } from './mrtr.service.js';
import { RequestStateCodec } from './request-state.codec.js';
import type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';

const KEY = randomBytes(32).toString('base64');

function serviceWith(requestState: McpModuleOptions['requestState'] = {}): McpMrtrService {
  const options = new McpResolvedOptions({ name: 'ops', version: '1', requestState: { keys: [KEY], ...requestState } });
  return new McpMrtrService(new RequestStateCodec(options, { path: '/mcp' }, new ApplicationConfig()), options);
}

const scopeOf = (params: Record<string, unknown>) =>
  ({
    id: 1,
    method: 'tools/call',
    params: { name: 'deploy', arguments: { to: 'prod' }, ...params },
    meta: {},
  }) as unknown as McpRequestScope;

/** The requestState the first round of `deploy` issues when it asks `confirm`. */
function firstRoundState(service: McpMrtrService): string {
  const ledger = service.begin(scopeOf({}), 'deploy') as AnswerLedger;
  ledger.ask('confirm', McpInput.url('Confirm the deploy', 'https://example.com/confirm') as never);
  const result = service.finish(ledger, scopeOf({}), 'deploy') as { requestState: string };
  return result.requestState;
}

async function refusal(run: () => unknown): Promise<McpError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('expected a refusal');
}

describe('McpMrtrService single-use requestState', () => {
  const retry = (state: string) => scopeOf({ requestState: state, inputResponses: { confirm: { action: 'accept' } } });

  it('off by default: a first round and a retry are answered synchronously, and a state may be sent twice', () => {
    const service = serviceWith();
    const state = firstRoundState(service);
    const once = service.begin(retry(state), 'deploy');
    const twice = service.begin(retry(state), 'deploy');
    expect(once).toBeInstanceOf(AnswerLedger);
    expect(twice).toBeInstanceOf(AnswerLedger);
  });

  it('on: the first use goes on, the second gets -32602 "already used"', async () => {
    const service = serviceWith({ singleUse: true });
    const state = firstRoundState(service);
    // A first round (no state) never waits for the store.
    expect(service.begin(scopeOf({}), 'deploy')).toBeInstanceOf(AnswerLedger);
    const first = await service.begin(retry(state), 'deploy');
    expect(first.has('confirm')).toBe(true);
    const error = await refusal(() => service.begin(retry(state), 'deploy'));
    expect(error.code).toBe(-32602);
    expect(error.httpStatus).toBe(200);
    expect(error.message).toBe(
      'Invalid requestState: this requestState was already used (states are single-use); start the call again without it',
    );
  });

  it('a state refused for another reason is not recorded: it still works for the call it belongs to', async () => {
    const ids: string[] = [];
    const store: McpRequestStateStore = { consume: (id) => (ids.push(id), true) };
    const service = serviceWith({ singleUse: store });
    const state = firstRoundState(service);
    const other = {
      ...retry(state),
      params: { ...retry(state).params, arguments: { to: 'staging' } },
    } as McpRequestScope;
    expect((await refusal(() => service.begin(other, 'deploy'))).message).toBe(
      'Invalid requestState: it belongs to another request',
    );
    expect(ids).toEqual([]);
    await service.begin(retry(state), 'deploy');
    expect(ids).toHaveLength(1);
  });

  it('passes the state id and its expiry to an async store, and fails closed on what it answers', async () => {
    const calls: [string, number][] = [];
    let answer: unknown = false;
    const store: McpRequestStateStore = {
      consume: async (id, expiresAt) => (calls.push([id, expiresAt]), answer as boolean),
    };
    const service = serviceWith({ singleUse: store, ttlMs: 60_000 });
    const before = Date.now();
    const state = firstRoundState(service);
    expect((await refusal(() => service.begin(retry(state), 'deploy'))).code).toBe(-32602);
    expect(calls[0][0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(calls[0][1]).toBeGreaterThanOrEqual(before + 60_000);
    expect(calls[0][1]).toBeLessThanOrEqual(Date.now() + 60_000);
    // Anything but true refuses (a store that answers "maybe" is not trusted).
    answer = 'yes';
    expect((await refusal(() => service.begin(retry(state), 'deploy'))).code).toBe(-32602);
    answer = true;
    await expect(service.begin(retry(state), 'deploy')).resolves.toBeInstanceOf(AnswerLedger);
  });

  it('tells the store who is calling: the principal, or else the remote address (IPv6 by its /64)', async () => {
    const callers: (string | undefined)[] = [];
    const store: McpRequestStateStore = { consume: (_id, _expiresAt, caller) => (callers.push(caller), true) };
    const service = serviceWith({ singleUse: store });
    const as = (extra: Partial<McpRequestScope>) =>
      ({ ...retry(firstRoundState(service)), ...extra }) as McpRequestScope;
    // A state issued to alice, retried by alice.
    const alice = (scope: McpRequestScope) =>
      ({ ...scope, principal: 'alice', remoteAddress: '10.0.0.1' }) as McpRequestScope;
    const ledger = service.begin(alice(scopeOf({})), 'deploy') as AnswerLedger;
    ledger.ask('confirm', McpInput.url('Confirm the deploy', 'https://example.com/confirm') as never);
    const issued = service.finish(ledger, alice(scopeOf({})), 'deploy') as { requestState: string };
    await service.begin(alice(retry(issued.requestState)), 'deploy');
    await service.begin(as({ remoteAddress: '2001:db8:1:2::7' }), 'deploy');
    await service.begin(as({}), 'deploy');
    expect(callers).toEqual(['p:alice', 'a:2001:db8:1:2::/64', undefined]);
  });

  it('a full in-memory store refuses the retry with its 503 error, not with a false "already used"', async () => {
    const service = serviceWith({ singleUse: new InMemoryRequestStateStore({ maxEntries: 1 }) });
    await service.begin(retry(firstRoundState(service)), 'deploy');
    const error = await refusal(() => service.begin(retry(firstRoundState(service)), 'deploy'));
    expect(error).toMatchObject({ code: -32603, httpStatus: 503 });
  });

  it.each([[{}], ['yes'], [{ consume: 'no' }]])(
    'refuses a singleUse option that is not a boolean or a store (%j)',
    (singleUse) => {
      expect(() => serviceWith({ singleUse: singleUse as never })).toThrow(/requestState\.singleUse/);
    },
  );
});

describe('McpMrtrService.round: one round, whichever holds the answers', () => {
  const confirm = () => McpInput.url('Confirm the deploy', 'https://example.com/confirm');
  const asking = (params: Record<string, unknown> = {}) =>
    ({
      ...scopeOf(params),
      meta: { clientCapabilities: { elicitation: { url: {} } } },
      cancellation: new AbortController(),
    }) as unknown as McpRequestScope;
  /** Opens the real tool context and records whether the round completed it. */
  const opener = (scope: McpRequestScope, completed: string[]) => (ledger: AnswerLedger) => {
    const context = McpToolContext.open(scope, 'deploy', ledger);
    const complete = context.complete.bind(context);
    context.complete = () => {
      completed.push('completed');
      complete();
    };
    return context;
  };

  it('answers from the request: a round that asks ends with a sealed input_required; the retry returns', async () => {
    const service = serviceWith();
    const completed: string[] = [];
    const first = await service.round(
      { from: 'request', scope: asking(), target: 'deploy' },
      opener(asking(), completed),
      (ctx) => ctx.elicit('confirm', confirm()),
    );
    if (first.kind !== 'input_required') throw new Error(`expected input_required, got ${first.kind}`);
    const sealed = first.asked as { resultType: string; requestState: string; inputRequests: object };
    expect(sealed.resultType).toBe('input_required');
    expect(Object.keys(sealed.inputRequests)).toEqual(['confirm']);

    const retry = asking({ requestState: sealed.requestState, inputResponses: { confirm: { action: 'accept' } } });
    const second = await service.round(
      { from: 'request', scope: retry, target: 'deploy' },
      opener(retry, completed),
      (ctx) => ctx.elicit('confirm', confirm()),
    );
    expect(second).toMatchObject({ kind: 'returned', value: { action: 'accept' } });
    expect(second.ledger.round).toBe(2);
    expect(completed).toEqual(['completed', 'completed']);
  });

  it('held answers: a round that asks ends with its requests, nothing sealed; with the answer it returns', async () => {
    const service = serviceWith();
    const completed: string[] = [];
    const first = await service.round({ from: 'held', answers: new Map() }, opener(asking(), completed), (ctx) =>
      ctx.elicit('confirm', confirm()),
    );
    if (first.kind !== 'input_required') throw new Error(`expected input_required, got ${first.kind}`);
    const requests = first.asked;
    expect([...requests].map(([key, request]) => [key, request.method])).toEqual([['confirm', 'elicitation/create']]);

    const answers = new Map([['confirm', { action: 'accept' }]]);
    const second = await service.round({ from: 'held', answers }, opener(asking(), completed), (ctx) =>
      ctx.elicit('confirm', confirm()),
    );
    expect(second).toMatchObject({ kind: 'returned', value: { action: 'accept' } });
    expect(second.ledger.acceptedAnswers()).toEqual({ confirm: { action: 'accept' } });
    // The caller's map is its own: the round works on a copy.
    expect(answers.size).toBe(1);
    expect(completed).toEqual(['completed', 'completed']);
  });

  it.each(['request', 'held'] as const)(
    'decided from the ledger (%s): a handler that catches the signal or throws after asking still ends asking',
    async (from) => {
      const service = serviceWith();
      const source = () =>
        from === 'request'
          ? ({ from, scope: asking(), target: 'deploy' } as const)
          : ({ from, answers: new Map<string, unknown>() } as const);
      const caught = await service.round(source() as never, opener(asking(), []), (ctx: McpToolContext) =>
        ctx.elicit('confirm', confirm()).catch(() => 'swallowed'),
      );
      const thrown = await service.round(source() as never, opener(asking(), []), async (ctx: McpToolContext) => {
        await ctx.elicit('confirm', confirm()).catch(() => undefined);
        throw new Error('after asking');
      });
      expect([caught.kind, thrown.kind]).toEqual(['input_required', 'input_required']);
    },
  );

  it('a failure of the handler is the end, after the context completed; a bad retry is refused before opening', async () => {
    const service = serviceWith();
    const completed: string[] = [];
    const failure = new Error('boom');
    const end = await service.round({ from: 'held', answers: new Map() }, opener(asking(), completed), () => {
      throw failure;
    });
    expect(end).toMatchObject({ kind: 'threw', error: failure });
    expect(completed).toEqual(['completed']);

    const opened: string[] = [];
    const bad = asking({ inputResponses: 'yes' });
    const error = await refusal(() =>
      service.round({ from: 'request', scope: bad, target: 'deploy' }, opener(bad, opened), () => 'never'),
    );
    expect(error).toMatchObject({ code: -32602 });
    expect(opened).toEqual([]);
  });
});
