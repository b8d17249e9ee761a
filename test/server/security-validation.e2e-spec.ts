import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpModuleOptions } from 'nest-mcp';
import { validationModule } from '../fixtures/security-validation.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { forkFixtureServer } from '../support/forked-server.js';
import { mcpPost, type RawResponse } from '../support/raw-request.util.js';
import { expectError, expectResult, textOf } from '../support/wire-response.util.js';

/**
 * Validation amplification (issue #13, item 4): arguments built to make a validator produce one error per key or
 * per array item (300,000 extra keys, a million wrong array items, keys of 100,000 characters) get one short
 * `isError` result (or `-32602`), cost the server little memory and time, and the server keeps serving. The memory
 * claims are measured on a real server process.
 */

const INVALID_PARAMS = -32602;
const MIB = 1024 * 1024;
/**
 * How much the server's RSS may peak above its level before one hostile call. Reading 4 MiB of arguments alone costs
 * 20–45 MiB; before the fix, 300,000 extra keys cost 90 MiB and a million wrong array items 230 MiB.
 */
const MAX_GROWTH = 64 * MIB;
/** The detail of an invalid-arguments message is at most 2 KiB; the prefix names the tool. */
const MAX_TEXT = 2048 + 'Invalid arguments for tool "strictLabel": '.length;

/** `{ ...base, k0: 0, …, k<count-1>: 0 }`. */
function manyKeys(count: number, base: Record<string, unknown> = {}): Record<string, unknown> {
  const args: Record<string, unknown> = { ...base };
  for (let index = 0; index < count; index++) args[`k${index}`] = 0;
  return args;
}

function callTool(url: URL, name: string, args: Record<string, unknown>): Promise<RawResponse> {
  return mcpPost(url, { method: 'tools/call', params: { name, arguments: args } });
}

/** The text of an `isError` result, checked to be bounded. */
function boundedErrorText(response: RawResponse): string {
  const result = expectResult<{ isError?: boolean; content: unknown }>(response, 'tools/call');
  expect(result.isError).toBe(true);
  const text = textOf(result);
  expect(text.length, text.slice(0, 300)).toBeLessThanOrEqual(MAX_TEXT);
  return text;
}

/** A server process forked with `--expose-gc`, that reports the peak RSS of a call over IPC. */
interface ServerProcess {
  url: URL;
  /** Collects garbage and restarts the peak from the current RSS. */
  reset(): Promise<number>;
  /** Bytes the RSS peaked above the value at the last reset. */
  peakGrowth(): Promise<number>;
  kill(): void;
}

async function forkServer(adapter: AdapterName, options: Partial<McpModuleOptions> = {}): Promise<ServerProcess> {
  const server = await forkFixtureServer('test/fixtures/security-validation-main.fixture.ts', [
    adapter,
    JSON.stringify(options),
  ]);
  let base = 0;
  return {
    url: server.url,
    reset: async () => {
      base = await server.ask<number>('reset', 'reset');
      return base;
    },
    peakGrowth: async () => (await server.ask<{ peakRss: number }>('peak', 'peak')).peakRss - base,
    kill: () => server.kill(),
  };
}

describe.each(ADAPTERS)('validation amplification on a real server process (%s)', (adapter) => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await forkServer(adapter);
    // Warm every path once, so that the measured calls do not count first-use costs.
    for (const [name, args] of [
      ['strictLabel', { label: 'warm', extra: 1 }],
      ['sumIntegers', { values: ['x'] }],
      ['dtoLabel', { label: 1 }],
      ['ping', { extra: 1 }],
    ] as const) {
      await callTool(server.url, name, args);
    }
  }, 60_000);
  afterAll(() => server?.kill());

  /** Sends one call and returns its answer and how much the server's RSS peaked above where it was before. */
  async function measured(name: string, args: Record<string, unknown>) {
    await server.reset();
    const started = performance.now();
    const response = await callTool(server.url, name, args);
    const elapsedMs = performance.now() - started;
    const growth = await server.peakGrowth();
    return { response, growth, elapsedMs };
  }

  it('300,000 extra keys on an additionalProperties:false tool → one short isError result, little memory; the next call works', async () => {
    const { response, growth } = await measured('strictLabel', manyKeys(300_000, { label: 'ok' }));
    expect(growth, `RSS peaked ${(growth / MIB).toFixed(1)} MiB higher`).toBeLessThan(MAX_GROWTH);
    const text = boundedErrorText(response);
    expect(text).toBe('Invalid arguments for tool "strictLabel": k0: is not allowed');

    expect(textOf(expectResult(await callTool(server.url, 'strictLabel', { label: 'next' }), 'tools/call'))).toBe(
      'label next',
    );
  }, 60_000);

  it('1,000,000 strings for an integer array → one short isError result, little memory; the next call works', async () => {
    const { response, growth } = await measured('sumIntegers', {
      values: Array.from({ length: 1_000_000 }, () => 'x'),
    });
    expect(growth, `RSS peaked ${(growth / MIB).toFixed(1)} MiB higher`).toBeLessThan(MAX_GROWTH);
    const text = boundedErrorText(response);
    expect(text).toBe('Invalid arguments for tool "sumIntegers": values/0: must be integer');

    expect(textOf(expectResult(await callTool(server.url, 'sumIntegers', { values: [1, 2] }), 'tools/call'))).toBe(
      'sum 3',
    );
  }, 60_000);

  it('300,000 extra keys on a DTO tool → refused quickly with a short isError result; the next call works', async () => {
    const { response, growth, elapsedMs } = await measured('dtoLabel', manyKeys(300_000, { label: 'ok' }));
    expect(growth, `RSS peaked ${(growth / MIB).toFixed(1)} MiB higher`).toBeLessThan(MAX_GROWTH);
    const text = boundedErrorText(response);
    expect(text).toMatch(/^Invalid arguments for tool "dtoLabel": must NOT have more than 1000 properties$/);
    expect(elapsedMs).toBeLessThan(5_000);

    expect(
      textOf(expectResult(await callTool(server.url, 'dtoLabel', { label: 'next', extra: true }), 'tools/call')),
    ).toBe('dto next');
  }, 60_000);

  it('300,000 keys for a tool without input → a short isError result naming a few of them; the next call works', async () => {
    const { response, growth } = await measured('ping', manyKeys(300_000));
    expect(growth, `RSS peaked ${(growth / MIB).toFixed(1)} MiB higher`).toBeLessThan(MAX_GROWTH);
    const text = boundedErrorText(response);
    expect(text).toBe(
      'Invalid arguments for tool "ping": the tool takes no arguments, got k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, …and 299990 more',
    );

    expect(textOf(expectResult(await callTool(server.url, 'ping', {}), 'tools/call'))).toBe('pong');
  }, 60_000);

  it('keys of 100,000 characters are not echoed whole', async () => {
    const long = (index: number) => `${String(index).padStart(2, '0')}${'k'.repeat(100_000)}`;
    const args = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [long(index), 0]));
    for (const name of ['strictLabel', 'ping']) {
      const text = boundedErrorText(await callTool(server.url, name, { ...args, label: 'ok' }));
      expect(text).toContain('00kkkk');
      expect(text).not.toContain('k'.repeat(200));
    }
    expect(textOf(expectResult(await callTool(server.url, 'ping', {}), 'tools/call'))).toBe('pong');
  }, 60_000);
});

describe.each(ADAPTERS)('bounded validation messages (%s)', (adapter) => {
  let running: RunningApp;
  let protocol: RunningApp;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [validationModule()] });
    protocol = await startApp(adapter, { imports: [validationModule({ invalidToolArguments: 'protocol' })] });
  });
  afterAll(async () => {
    await running?.close();
    await protocol?.close();
  });

  it('10,000 invalid items of a DTO array → at most 10 issues and a count of the rest', async () => {
    const text = boundedErrorText(
      await callTool(running.mcpUrl, 'dtoPath', { points: Array.from({ length: 10_000 }, () => ({ x: -1 })) }),
    );
    expect(text).toMatch(
      /^Invalid arguments for tool "dtoPath": points\/0\/x: must not be less than 0; points\/1\/x: /,
    );
    expect(text.match(/points\/\d+\/x/g)).toHaveLength(10);
    expect(text).toMatch(/; …and 9990 more$/);
    expect(textOf(expectResult(await callTool(running.mcpUrl, 'dtoPath', { points: [{ x: 1 }] }), 'tools/call'))).toBe(
      'points 1',
    );
  });

  it('10,000 wrong items for a zod integer array → at most 10 issues and a count of the rest', async () => {
    const text = boundedErrorText(
      await callTool(running.mcpUrl, 'zodIntegers', { values: Array.from({ length: 10_000 }, () => 'x') }),
    );
    expect(text.match(/values\/\d+:/g)).toHaveLength(10);
    expect(text).toMatch(/; …and 9990 more$/);
    expect(textOf(expectResult(await callTool(running.mcpUrl, 'zodIntegers', { values: [1, 2] }), 'tools/call'))).toBe(
      'zod sum 3',
    );
  });

  it("with invalidToolArguments: 'protocol' the same bounded text is a -32602 error", async () => {
    const response = await callTool(protocol.mcpUrl, 'strictLabel', manyKeys(50_000, { label: 'ok' }));
    const error = expectError(response, 200, INVALID_PARAMS);
    expect(error.message).toBe('Invalid arguments for tool "strictLabel": k0: is not allowed');

    const long = expectError(
      await callTool(protocol.mcpUrl, 'ping', { ['x'.repeat(100_000)]: 1 }),
      200,
      INVALID_PARAMS,
    );
    expect(long.message.length).toBeLessThanOrEqual(MAX_TEXT);
    expect(long.message).not.toContain('x'.repeat(200));

    expect(textOf(expectResult(await callTool(protocol.mcpUrl, 'strictLabel', { label: 'next' }), 'tools/call'))).toBe(
      'label next',
    );
  });
});
