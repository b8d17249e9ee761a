import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityStateModule, StateProbe } from '../fixtures/security-state.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { expectError, expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Issue #13, item 10 a and b, over real HTTP on both adapters:
 * - a `requestState` is bound to the server's name and endpoint, so two servers sharing keys (or two endpoints)
 *   refuse each other's states exactly like an altered one (200 / -32602);
 * - with `requestState.singleUse`, a state is accepted once; a replay gets 200 / -32602 "already used" and the side
 *   effect does not run again.
 */

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const FORM = { elicitation: { form: {} } };
const APPROVE = { approve: { action: 'accept', content: { approve: true } } };

/** Round one of `transfer`: returns its requestState. */
async function firstRound(app: RunningApp, amount = 10): Promise<string> {
  const response = await mcpPost(app.mcpUrl, {
    method: 'tools/call',
    params: { name: 'transfer', arguments: { amount } },
    meta: requestMeta({ [CAPS]: FORM }),
  });
  const result = expectResult<{ resultType: string; requestState: string }>(response, 'tools/call');
  expect(result.resultType).toBe('input_required');
  return result.requestState;
}

/** The retry of `transfer` with the approval and `requestState`. */
function retry(app: RunningApp, requestState: string, amount = 10): Promise<RawResponse> {
  return mcpPost(app.mcpUrl, {
    method: 'tools/call',
    params: { name: 'transfer', arguments: { amount }, requestState, inputResponses: APPROVE },
    meta: requestMeta({ [CAPS]: FORM }),
  });
}

/** The app answers a whole fresh flow afterwards. */
async function stillServes(app: RunningApp, amount = 1): Promise<void> {
  const state = await firstRound(app, amount);
  expect(textOf(expectResult(await retry(app, state, amount), 'tools/call'))).toBe(`transferred ${amount}`);
}

describe.each(ADAPTERS)('requestState binding and single use (%s)', (adapter) => {
  const apps: Record<string, RunningApp> = {};
  const probe = (name: string) => apps[name].app.get(StateProbe);

  beforeAll(async () => {
    const servers = {
      alpha: SecurityStateModule.serve('alpha'),
      alphaReplica: SecurityStateModule.serve('alpha'),
      beta: SecurityStateModule.serve('beta'),
      alphaElsewhere: SecurityStateModule.serve('alpha', '/other/mcp'),
      singleUse: SecurityStateModule.serve('alpha', '/mcp', { singleUse: true }),
    };
    for (const [name, module] of Object.entries(servers)) {
      const path = name === 'alphaElsewhere' ? '/other/mcp' : '/mcp';
      apps[name] = await startApp(adapter, { imports: [module] }, { path });
    }
  });
  afterAll(async () => {
    await Promise.all(Object.values(apps).map((app) => app.close()));
  });

  describe('bound to the server name and endpoint', () => {
    it('a replica (same keys, name and endpoint) continues the flow', async () => {
      const state = await firstRound(apps.alpha, 11);
      expect(textOf(expectResult(await retry(apps.alphaReplica, state, 11), 'tools/call'))).toBe('transferred 11');
    });

    it.each([
      ['another server name (same keys, same path)', 'beta'],
      ['another endpoint path (same keys, same name)', 'alphaElsewhere'],
    ])('%s → 200 / -32602 "integrity check failed", the handler never runs', async (_label, other) => {
      const state = await firstRound(apps.alpha, 12);
      const runsBefore = probe(other).runs;
      const error = expectError(await retry(apps[other], state, 12), 200, -32602);
      expect(error.message).toBe('Invalid requestState: integrity check failed');
      expect(probe(other).runs).toBe(runsBefore);
      expect(probe(other).transfers).not.toContain('12');
      await stillServes(apps[other]);
    });

    it('the answer is exactly that of an altered state on the same server', async () => {
      const state = await firstRound(apps.beta, 13);
      const altered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
      const tampered = expectError(await retry(apps.beta, altered, 13), 200, -32602);
      const foreign = expectError(await retry(apps.beta, await firstRound(apps.alpha, 13), 13), 200, -32602);
      expect(foreign).toEqual(tampered);
    });
  });

  describe('single use (requestState.singleUse: true)', () => {
    it('the first use completes; a replay gets 200 / -32602 "already used" and does not repeat the side effect', async () => {
      const state = await firstRound(apps.singleUse, 20);
      expect(textOf(expectResult(await retry(apps.singleUse, state, 20), 'tools/call'))).toBe('transferred 20');
      const runs = probe('singleUse').runs;
      const error = expectError(await retry(apps.singleUse, state, 20), 200, -32602);
      expect(error.message).toBe(
        'Invalid requestState: this requestState was already used (states are single-use); start the call again without it',
      );
      expect(probe('singleUse').runs).toBe(runs);
      expect(probe('singleUse').transfers.filter((amount) => amount === '20')).toHaveLength(1);
      await stillServes(apps.singleUse);
    });

    it('another spelling of the same state (padding, a line break: the same bytes) is the same state: refused', async () => {
      const state = await firstRound(apps.singleUse, 24);
      expect(textOf(expectResult(await retry(apps.singleUse, state, 24), 'tools/call'))).toBe('transferred 24');
      for (const spelling of [`${state}=`, `${state}\n`]) {
        expect(expectError(await retry(apps.singleUse, spelling, 24), 200, -32602).message).toMatch(/already used/);
      }
      expect(probe('singleUse').transfers.filter((amount) => amount === '24')).toHaveLength(1);
      await stillServes(apps.singleUse);
    });

    it('ten concurrent replays of one state: exactly one transfer', async () => {
      const state = await firstRound(apps.singleUse, 21);
      const responses = await Promise.all(Array.from({ length: 10 }, () => retry(apps.singleUse, state, 21)));
      const completed = responses.filter((response) => !(response.json as { error?: unknown }).error);
      expect(completed).toHaveLength(1);
      expect(textOf(expectResult(completed[0], 'tools/call'))).toBe('transferred 21');
      for (const response of responses.filter((candidate) => candidate !== completed[0])) {
        expect(expectError(response, 200, -32602).message).toMatch(/already used/);
      }
      expect(probe('singleUse').transfers.filter((amount) => amount === '21')).toHaveLength(1);
      await stillServes(apps.singleUse);
    });

    it('a state that asks again (a new round) is a new state: each round is used once', async () => {
      const state = await firstRound(apps.singleUse, 22);
      const declined = await mcpPost(apps.singleUse.mcpUrl, {
        method: 'tools/call',
        params: {
          name: 'transfer',
          arguments: { amount: 22 },
          requestState: state,
          inputResponses: { approve: { action: 'accept', content: { approve: 'not a boolean' } } },
        },
        meta: requestMeta({ [CAPS]: FORM }),
      });
      // Content that breaks the form is asked again, with a fresh state.
      const again = expectResult<{ resultType: string; requestState: string }>(declined, 'tools/call');
      expect(again.resultType).toBe('input_required');
      expect(again.requestState).not.toBe(state);
      expectError(await retry(apps.singleUse, state, 22), 200, -32602);
      expect(textOf(expectResult(await retry(apps.singleUse, again.requestState, 22), 'tools/call'))).toBe(
        'transferred 22',
      );
    });

    it('off by default: on the same server without singleUse a replay runs again (documented)', async () => {
      const state = await firstRound(apps.alpha, 23);
      expect(textOf(expectResult(await retry(apps.alpha, state, 23), 'tools/call'))).toBe('transferred 23');
      expect(textOf(expectResult(await retry(apps.alpha, state, 23), 'tools/call'))).toBe('transferred 23');
      expect(probe('alpha').transfers.filter((amount) => amount === '23')).toHaveLength(2);
    });
  });
});
