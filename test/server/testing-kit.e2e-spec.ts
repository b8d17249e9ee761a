import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule, type TestingModuleBuilder } from '@nestjs/testing';
import { McpTestingClient, McpTestingError, type McpTestingRequestOptions } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetaKeys } from '../../libs/mcp/src/protocol/meta-keys.constants.js';
import { InProcessTestingTransport } from '../../libs/mcp/src/testing/in-process.transport.js';
import { AdminGuard, BackupsModule, BackupStore } from '../fixtures/backups.fixture.js';

/**
 * nest-mcp/testing against a small backup service, written only with the kit and Nest's testing module. Every
 * behaviour is checked in the three ways a test can reach the server: in-process, and over HTTP on Express and
 * on Fastify. The `#region docs:…` blocks are quoted by docs/testing.md.
 */

const FORM = { elicitation: { form: {} } };

// #region docs:harness
type Mode = 'in-process' | 'express' | 'fastify';

/** The module under test, compiled (with the test's overrides) and reachable in one mode. */
interface Harness {
  moduleRef: TestingModule;
  /** A new client with these defaults: in-process, or over HTTP to the listening app. */
  client(options?: McpTestingRequestOptions): Promise<McpTestingClient>;
  close(): Promise<void>;
}

async function start(mode: Mode, customize = (builder: TestingModuleBuilder) => builder): Promise<Harness> {
  const moduleRef = await customize(Test.createTestingModule({ imports: [BackupsModule] })).compile();
  if (mode === 'in-process') {
    return {
      moduleRef,
      client: (options) => McpTestingClient.create(moduleRef, options),
      close: () => moduleRef.close(),
    };
  }
  const app: INestApplication =
    mode === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return { moduleRef, client: (options) => McpTestingClient.connect(app, options), close: () => app.close() };
}
// #endregion docs:harness

describe('McpTestingClient with a TestingModule (in-process)', () => {
  // #region docs:first-test
  let moduleRef: TestingModule;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [BackupsModule] }).compile();
  });
  afterAll(() => moduleRef.close());

  it('calls a tool through the real pipeline', async () => {
    const client = await McpTestingClient.create(moduleRef);

    const result = await client.callTool('list_backups');

    expect(result.isError).toBe(false);
    expect(result.structured<{ backups: { id: string }[] }>().backups.map((backup) => backup.id)).toEqual([
      'b-1',
      'b-2',
    ]);
    expect(moduleRef.get(BackupStore).events).toContain('audit listBackups'); // the interceptor ran
  });
  // #endregion docs:first-test

  // #region docs:request-object
  it('hands guards a request object the test controls: headers, user, principal', async () => {
    const client = await McpTestingClient.create(moduleRef, { capabilities: FORM });

    const asUser = await client.callTool('delete_backup', { id: 'b-9' }, { user: { sub: 'bob', roles: ['admin'] } });
    expect(asUser.text()).toBe('No backup b-9'); // the guard let the admin user through

    expect((await client.callTool('whoami', {}, { user: { sub: 'bob' } })).text()).toBe('bob');
    expect((await client.callTool('whoami', {}, { principal: 'carol' })).text()).toBe('carol');
    expect((await client.callTool('whoami')).text()).toBe('anonymous');
  });
  // #endregion docs:request-object

  it('runs the 2026-07-28 preamble every transport runs: an unsupported protocol version is -32022', async () => {
    await moduleRef.init();
    const transport = InProcessTestingTransport.from(moduleRef);
    const message = {
      jsonrpc: '2.0' as const,
      id: 1,
      method: 'tools/list',
      params: { _meta: { [MetaKeys.protocolVersion]: '2099-01-01', [MetaKeys.clientCapabilities]: {} } },
    };
    const reply = await transport.send({ message, options: {}, onNotification: () => undefined });
    expect([reply.httpStatus, 'error' in reply.response && reply.response.error.code]).toEqual([400, -32022]);
  });

  it('reports a handler that asks without an answer scripted', async () => {
    const client = await McpTestingClient.create(moduleRef, { capabilities: FORM });
    await expect(client.callTool('restore_backup', { id: 'b-1' })).rejects.toThrow(
      /asked for input "environment" \(elicitation\/create: Restore b-1 where\?\) in round 1.*onElicit/,
    );
  });

  it('gives up on a handler that keeps asking after maxRounds', async () => {
    const client = await McpTestingClient.create(moduleRef, { capabilities: FORM, maxRounds: 2 });
    client.onElicit((request) =>
      request.key === 'environment'
        ? { action: 'accept', content: { environment: 'staging' } }
        : { action: 'accept', content: { confirm: true } },
    );
    await expect(client.callTool('restore_backup', { id: 'b-1' })).rejects.toThrow(
      'tools/call still asked for input after 2 rounds',
    );
  });
});

describe.each<Mode>(['in-process', 'express', 'fastify'])('McpTestingClient (%s)', (mode) => {
  describe('on the plain module', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await start(mode);
    });
    afterAll(() => harness.close());

    it('reports its mode', async () => {
      expect((await harness.client()).mode).toBe(mode === 'in-process' ? 'in-process' : 'http');
    });

    it('discovers the server and lists tools, prompts and templates; completes arguments', async () => {
      const client = await harness.client();
      const discovered = await client.discover();
      expect(discovered.supportedVersions).toContain('2026-07-28');
      expect(discovered.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {} });
      expect((await client.listTools()).map((tool) => tool.name)).toEqual([
        'create_backup',
        'delete_backup',
        'list_backups',
        'restore_backup',
        'verify_backup',
        'whoami',
      ]);
      expect(await client.listPrompts()).toEqual([expect.objectContaining({ name: 'restore_plan' })]);
      expect(await client.listResources()).toEqual([]);
      expect(await client.listResourceTemplates()).toEqual([
        expect.objectContaining({ uriTemplate: 'backups://{id}' }),
      ]);
      const completion = await client.complete(
        { type: 'ref/prompt', name: 'restore_plan' },
        { name: 'service', value: 'ch' },
      );
      expect(completion.values).toEqual(['checkout-api']);
    });

    it('reads prompts and resources', async () => {
      const client = await harness.client();
      expect((await client.getPrompt('restore_plan', { service: 'auth-gateway' })).text()).toBe(
        'Plan the restore of auth-gateway.',
      );
      const backup = await client.readResource('backups://b-2');
      expect(JSON.parse(backup.text())).toEqual({ id: 'b-2', service: 'auth-gateway', sizeMb: 80 });
      expect(backup.contents[0].mimeType).toBe('application/json');
    });

    // #region docs:guard
    it('runs the guard: denied without the admin header, allowed with it', async () => {
      const client = await harness.client({ capabilities: FORM });

      const denied = await client.callTool('delete_backup', { id: 'b-1' });
      expect(denied.isError).toBe(true);
      expect(denied.text()).toBe('Only admins may delete backups');

      const allowed = await client.callTool(
        'delete_backup',
        { id: 'b-1' },
        {
          headers: { 'x-role': 'admin' },
          answers: [{ action: 'decline' }],
        },
      );
      expect(allowed.text()).toBe('kept b-1');
    });
    // #endregion docs:guard

    // #region docs:validation
    it('answers invalid arguments with an isError result, and protocol errors with McpTestingError', async () => {
      const client = await harness.client();

      const invalid = await client.callTool('create_backup', { service: 'Checkout API', retentionDays: 90 });
      expect(invalid.isError).toBe(true);
      expect(invalid.text()).toMatch(/Invalid arguments for tool "create_backup".*retentionDays/);

      const unknown = await client.callTool('drop_database').catch((error: unknown) => error);
      expect(unknown).toBeInstanceOf(McpTestingError);
      expect(unknown).toMatchObject({ code: -32602, message: 'Unknown tool: drop_database', httpStatus: 200 });

      await expect(client.readResource('backups://b-404')).rejects.toMatchObject({
        code: -32602,
        data: { uri: 'backups://b-404' },
      });
    });
    // #endregion docs:validation

    it('reports an elicitation the client did not declare as -32021 (HTTP 400)', async () => {
      const client = await harness.client({ headers: { 'x-role': 'admin' } });
      await expect(client.callTool('delete_backup', { id: 'b-2' })).rejects.toMatchObject({
        code: -32021,
        httpStatus: 400,
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
    });

    // #region docs:elicit-callback
    it('answers an elicitation through a callback, with the real retry', async () => {
      const client = await harness.client({ capabilities: FORM, headers: { 'x-role': 'admin' } });
      client.onElicit((request) => {
        expect(request).toMatchObject({
          key: 'confirm',
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Delete backup b-2?' },
        });
        return { action: 'accept', content: { confirm: true } };
      });

      const result = await client.callTool('delete_backup', { id: 'b-2' });

      expect(result.text()).toBe('deleted b-2');
      expect(result.rounds).toBe(2);
      expect(harness.moduleRef.get(BackupStore).find('b-2')).toBeUndefined();
    });
    // #endregion docs:elicit-callback

    // #region docs:elicit-queue
    it('answers a multi-round elicitation from a scripted queue', async () => {
      const client = await harness.client({ capabilities: FORM });
      client.answerWith(
        { action: 'accept', content: { environment: 'staging' } },
        { action: 'accept', content: { confirm: true } },
      );

      const result = await client.callTool('restore_backup', { id: 'b-1' });

      expect(result.text()).toBe('restored b-1 to staging');
      expect(result.inputRequests.map((request) => [request.key, request.round])).toEqual([
        ['environment', 1],
        ['confirm', 2],
      ]);
      expect(result.rounds).toBe(3);
      expect(client.pendingAnswers).toBe(0);
    });
    // #endregion docs:elicit-queue

    it('asks again when an answer breaks the form, then takes a valid one', async () => {
      const client = await harness.client({ capabilities: FORM });
      const result = await client.callTool(
        'restore_backup',
        { id: 'b-1' },
        {
          answers: [
            { action: 'accept', content: { environment: 'moon' } },
            { action: 'accept', content: { environment: 'production' } },
            { action: 'decline' },
          ],
        },
      );
      expect(result.text()).toBe('not restored');
      expect(result.inputRequests.map((request) => request.key)).toEqual(['environment', 'environment', 'confirm']);
    });

    // #region docs:progress-logs
    it('collects progress and the logs at or above the requested level', async () => {
      const client = await harness.client({ logLevel: 'info' });

      const result = await client.callTool('verify_backup', { chunks: 2 });

      expect(result.text()).toBe('verified 2 chunks');
      expect(result.progress).toEqual([
        { progress: 0.5, total: 1, message: 'chunk 1 of 2' },
        { progress: 1, total: 1, message: 'chunk 2 of 2' },
      ]);
      expect(result.logs).toEqual([
        { level: 'info', logger: 'verifier', data: { event: 'verify started', chunks: 2 } },
        { level: 'notice', logger: 'verifier', data: 'verify finished' },
      ]);
    });
    // #endregion docs:progress-logs

    it('sends no progress token or log level unless asked', async () => {
      const client = await harness.client({ progress: false });
      const result = await client.callTool('verify_backup', { chunks: 2 });
      expect(result.progress).toEqual([]);
      expect(result.logs).toEqual([]);
      expect(result.notifications).toEqual([]);
    });

    // #region docs:cancel
    it('cancels a call half-way through its signal', async () => {
      const client = await harness.client();
      const abort = new AbortController();

      const call = client.callTool(
        'verify_backup',
        { chunks: 10, delayMs: 20 },
        {
          signal: abort.signal,
          onProgress: ({ progress }) => progress >= 0.3 && abort.abort(),
        },
      );

      await expect(call).rejects.toThrow();
      const store = harness.moduleRef.get(BackupStore);
      // In-process the handler sees the abort at once; over HTTP it sees the disconnect a moment later.
      const cancelled = () => store.events.find((event) => event.startsWith('verify cancelled'));
      await expect.poll(cancelled).toMatch(/^verify cancelled at [3-9]\/10$/);
    });
    // #endregion docs:cancel

    it('binds the principal to the request state through the module principal (x-user)', async () => {
      const client = await harness.client({ capabilities: FORM, headers: { 'x-user': 'alice' } });
      expect((await client.callTool('whoami')).text()).toBe('alice');
      client.answerWith({ action: 'accept', content: { environment: 'production' } }, { action: 'cancel' });
      expect((await client.callTool('restore_backup', { id: 'b-1' })).text()).toBe('not restored');
    });

    it('opens a listen stream', async () => {
      const client = await harness.client();
      const stream = await client.listen({ toolsListChanged: true, promptsListChanged: true });
      expect(stream.acknowledged).toEqual({ toolsListChanged: true, promptsListChanged: true });
      await stream.close();
    });
  });

  // #region docs:override-guard
  describe('with the guard overridden', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await start(mode, (builder) => builder.overrideGuard(AdminGuard).useValue({ canActivate: () => true }));
    });
    afterAll(() => harness.close());

    it('lets anyone delete', async () => {
      const client = await harness.client({ capabilities: FORM });
      const result = await client.callTool(
        'delete_backup',
        { id: 'b-1' },
        { answers: [{ action: 'accept', content: { confirm: true } }] },
      );
      expect(result.text()).toBe('deleted b-1');
    });
  });
  // #endregion docs:override-guard

  // #region docs:override-provider
  describe('with the store overridden', () => {
    const fakeStore = { list: () => [{ id: 'fake-1', service: 'search-indexer', sizeMb: 1 }], record: () => undefined };
    let harness: Harness;
    beforeAll(async () => {
      harness = await start(mode, (builder) => builder.overrideProvider(BackupStore).useValue(fakeStore));
    });
    afterAll(() => harness.close());

    it('serves the fake', async () => {
      const result = await (await harness.client()).callTool('list_backups');
      expect(result.structured()).toEqual({ backups: [{ id: 'fake-1', service: 'search-indexer', sizeMb: 1 }] });
    });
  });
  // #endregion docs:override-provider
});

describe('McpTestingClient over HTTP only', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await start('express');
  });
  afterAll(() => harness.close());

  it('refuses what only exists in-process', async () => {
    const client = await harness.client();
    await expect(client.callTool('whoami', {}, { principal: 'carol' })).rejects.toThrow(
      /"principal" is in-process only/,
    );
    await expect(client.callTool('whoami', {}, { user: { sub: 'carol' } })).rejects.toThrow(
      /"user" is in-process only/,
    );
  });

  it('needs a listening application', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [BackupsModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(McpTestingClient.connect(app)).rejects.toThrow(/needs a listening application/);
    await app.close();
  });
});
