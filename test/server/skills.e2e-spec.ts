import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpModule, McpSkill, type McpModuleOptions, type McpSkillFiles } from 'nest-mcp';
import { McpTestingClient, McpTestingError } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { ADAPTERS, type RunningApp, startApp } from '../support/app.factory.js';
import {
  connectLegacyClient,
  LEGACY_VERSION,
  legacyPost,
  type LegacyConnection,
} from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost } from '../support/raw-request.util.js';

/**
 * Skills (SEP-2640) end to end, on both adapters and both wires, through the official client (raw requests for the
 * skills methods it does not name). Every digest and size is computed here over what `resources/read` returned.
 */

const EXTENSION = 'io.modelcontextprotocol/skills';
const ANY = z.any();

const REFUNDS_MD =
  '---\nname: refunds\ndescription: Issue refunds by the book.\nmetadata:\n  version: "2.1"\n  revision: 2.1\n---\n# Refunds\n\nSee [the guide](references/GUIDE.md).\n';
const ESCALATION_MD = '---\r\nname: escalation\r\ndescription: Escalate a refund dispute.\r\n---\r\n# Escalation\r\n';
const LOGO = randomBytes(64); // not UTF-8 (almost surely): served as a blob
LOGO[0] = 0xff;

/** Writes a file below `root`, creating its folders. */
function write(root: string, path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The bytes a host gets from one `resources/read` content item: UTF-8 of `text`, or the decoded `blob`. */
function bytesOf(content: { text?: string; blob?: string }): Buffer {
  return content.text !== undefined ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob!, 'base64');
}

/** The frontmatter a host parses from a served SKILL.md (the checkers' own expression and parser). */
function frontmatterOf(text: string): unknown {
  const block = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return block ? parse(block[1]) : undefined;
}

let fixtures: string;
let roots: { main: string; restricted: string; classDir: string };

/** Skills from providers: a dynamic one, an unlisted one, and one from a folder named by a class. */
@Injectable()
class ProviderSkills {
  reads = 0;

  @McpSkill({ path: 'reports/daily-digest', resources: 'dynamic' })
  digest(): McpSkillFiles {
    this.reads++;
    return {
      'SKILL.md': "---\nname: daily-digest\ndescription: Today's digest, produced at each read.\n---\n# Digest\n",
      'data/today.md': `read ${this.reads}\n`,
    };
  }

  @McpSkill({ path: 'internal/unlisted-helper', listed: false })
  unlisted(): McpSkillFiles {
    return { 'SKILL.md': '---\nname: unlisted-helper\ndescription: Only reachable by URI.\n---\nhidden\n' };
  }
}

function options(extra: Partial<McpModuleOptions> = {}): McpModuleOptions {
  return {
    name: 'skills-e2e',
    version: '1.0.0',
    pageSize: 2,
    skills: { roots: [roots.main], directoryRead: true, ttlMs: 1234 },
    ...extra,
  };
}

beforeAll(() => {
  fixtures = mkdtempSync(join(tmpdir(), 'nest-mcp-skills-'));
  roots = { main: join(fixtures, 'main'), restricted: join(fixtures, 'restricted'), classDir: join(fixtures, 'class') };
  // A BOM on disk: it must never be served, hashed or listed.
  write(
    roots.main,
    'acme/billing/refunds/SKILL.md',
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(REFUNDS_MD)]),
  );
  write(roots.main, 'acme/billing/refunds/references/GUIDE.md', '# Guide\n\nRefund within 30 days.\n');
  write(roots.main, 'acme/billing/refunds/assets/logo.bin', LOGO);
  write(roots.main, 'acme/billing/refunds/escalation/SKILL.md', ESCALATION_MD);
  write(roots.main, 'acme/billing/refunds/escalation/notes.txt', 'call the lead\n');
  write(roots.main, 'ops/rollout/SKILL.md', '---\nname: rollout\ndescription: Roll out safely.\n---\nbody\n');
  write(roots.main, 'README.md', 'not a skill: ignored\n');
  write(
    roots.restricted,
    'admin/secret-ops/SKILL.md',
    '---\nname: secret-ops\ndescription: For admins only.\n---\nsecret\n',
  );
});
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

/** The skills methods as one wire sees them: raw requests through the official client. */
interface Wire {
  readonly name: 'modern' | 'legacy';
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, any>>;
  read(uri: string): Promise<{ contents: { uri: string; mimeType?: string; text?: string; blob?: string }[] }>;
  listResources(): Promise<{ uri: string; name: string; description?: string; mimeType?: string }[]>;
}

function wireOf(name: Wire['name'], client: Client): Wire {
  return {
    name,
    request: (method, params = {}) => client.request({ method, params } as never, ANY) as Promise<Record<string, any>>,
    read: (uri) => client.readResource({ uri }) as never,
    listResources: async () => {
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor ? { cursor } : {});
        all.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor);
      return all as never;
    },
  };
}

/** Every page of a paginated method, with the pages themselves. */
async function allPages(wire: Wire, method: string, field: string, params: Record<string, unknown> = {}) {
  const pages: Record<string, any>[] = [];
  let cursor: string | undefined;
  do {
    expect(pages.length).toBeLessThan(20);
    const page = await wire.request(method, cursor === undefined ? params : { ...params, cursor });
    expect(page.nextCursor).not.toBe('');
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { pages, items: pages.flatMap((page) => page[field] as Record<string, any>[]) };
}

async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
}

describe.each(ADAPTERS)('skills over Streamable HTTP (%s)', (adapter) => {
  let running: RunningApp;
  let modern: Client;
  let legacy: LegacyConnection;
  let wires: Wire[];

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [McpModule.forRoot(options())], providers: [ProviderSkills] });
    modern = await connectClient(running.mcpUrl);
    legacy = await connectLegacyClient(running.mcpUrl);
    wires = [wireOf('modern', modern), wireOf('legacy', legacy.client)];
  });
  afterAll(async () => {
    await modern?.close();
    await legacy?.client.close();
    await running?.close();
  });

  it('advertises the extension with directoryRead, and the resources capability, on both wires', async () => {
    const discover = await modern.discover();
    expect(discover.capabilities.extensions).toEqual({ [EXTENSION]: { directoryRead: true } });
    expect(discover.capabilities.resources).toBeTypeOf('object');
    expect(legacy.client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION]: { directoryRead: true } });
    expect(legacy.client.getServerCapabilities()?.resources).toBeTypeOf('object');
  });

  for (const wireName of ['modern', 'legacy'] as const) {
    describe(`on the ${wireName} wire`, () => {
      const wire = () => wires.find((candidate) => candidate.name === wireName)!;

      it('lists the listed skills in atomic pages that end without a cursor', async () => {
        const { pages, items } = await allPages(wire(), 'skills/list', 'skills');
        expect(pages.length).toBe(2); // pageSize 2, four listed skills (the nested one included)
        expect(items.map((entry) => entry.uri)).toEqual([
          'skill://acme/billing/refunds/SKILL.md',
          'skill://acme/billing/refunds/escalation/SKILL.md',
          'skill://ops/rollout/SKILL.md',
          'skill://reports/daily-digest/SKILL.md',
        ]);
        expect(new Set(items.map((entry) => entry.uri)).size).toBe(items.length);
        expect(pages.at(-1)).not.toHaveProperty('nextCursor');
        if (wireName === 'modern') {
          for (const page of pages) expect(page).toMatchObject({ ttlMs: 1234, cacheScope: 'public' });
        } else {
          for (const page of pages) expect(page).not.toHaveProperty('ttlMs');
        }
      });

      it('describes exactly the bytes resources/read returns: digests, sizes, frontmatter, skills/get', async () => {
        const { items } = await allPages(wire(), 'skills/list', 'skills');
        const statics = items.filter((entry) => entry.resources !== 'dynamic');
        expect(statics).toHaveLength(3);
        for (const entry of statics) {
          const uris = entry.resources.map((resource: { uri: string }) => resource.uri);
          expect(uris).toContain(entry.uri);
          expect(new Set(uris).size).toBe(uris.length);
          for (const resource of entry.resources as { uri: string; digest: string; size: number }[]) {
            const read = await wire().read(resource.uri);
            const bytes = bytesOf(read.contents[0]);
            expect({ uri: resource.uri, digest: sha256(bytes), size: bytes.length }).toEqual(resource);
          }
          const skillMd = (await wire().read(entry.uri)).contents[0];
          expect(skillMd.text, 'SKILL.md is served as text').toBeTypeOf('string');
          expect(skillMd.text!.startsWith('\uFEFF')).toBe(false);
          expect(frontmatterOf(skillMd.text!)).toEqual(entry.frontmatter);
          const got = await wire().request('skills/get', { uri: entry.uri });
          expect(got.skill).toEqual(entry);
          expect(got).not.toHaveProperty('nextCursor');
          if (wireName === 'modern') expect(got).toMatchObject({ ttlMs: 1234, cacheScope: 'public' });
        }
        const refunds = statics[0];
        expect(refunds.frontmatter).toEqual({
          name: 'refunds',
          description: 'Issue refunds by the book.',
          metadata: { version: '2.1', revision: 2.1 },
        });
        // The nested skill's files belong to both manifests, with the same digests.
        const nested = statics[1].resources;
        for (const file of nested) expect(refunds.resources).toContainEqual(file);
        expect(refunds.resources.map((resource: { uri: string }) => resource.uri)).toEqual([
          'skill://acme/billing/refunds/SKILL.md',
          'skill://acme/billing/refunds/assets/logo.bin',
          'skill://acme/billing/refunds/escalation/SKILL.md',
          'skill://acme/billing/refunds/escalation/notes.txt',
          'skill://acme/billing/refunds/references/GUIDE.md',
        ]);
        const logo = (await wire().read('skill://acme/billing/refunds/assets/logo.bin')).contents[0];
        expect(logo.blob).toBeTypeOf('string');
        expect(Buffer.from(logo.blob!, 'base64').equals(LOGO)).toBe(true);
      });

      it('lists each listed SKILL.md in resources/list with its frontmatter name and description', async () => {
        const resources = await wire().listResources();
        const skillMds = resources.filter((resource) => resource.uri.startsWith('skill://'));
        expect(skillMds.map((resource) => resource.uri)).toEqual([
          'skill://acme/billing/refunds/SKILL.md',
          'skill://acme/billing/refunds/escalation/SKILL.md',
          'skill://ops/rollout/SKILL.md',
          'skill://reports/daily-digest/SKILL.md',
        ]);
        expect(skillMds[0]).toMatchObject({
          name: 'refunds',
          description: 'Issue refunds by the book.',
          mimeType: 'text/markdown',
        });
      });

      it('reads directories: direct children, folders as inode/directory, the same files as the manifest', async () => {
        const refunds = (await wire().request('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' })).skill;
        const found: Record<string, number> = {};
        const walk = async (uri: string): Promise<void> => {
          const { pages, items } = await allPages(wire(), 'resources/directory/read', 'resources', { uri });
          if (wireName === 'modern')
            for (const page of pages) expect(page).toMatchObject({ ttlMs: 1234, cacheScope: 'public' });
          for (const child of items) {
            expect(child.uri.startsWith(`${uri}/`)).toBe(true);
            expect(child.uri.slice(uri.length + 1)).not.toContain('/');
            if (child.mimeType === 'inode/directory') await walk(child.uri);
            else found[child.uri] = child.size;
          }
        };
        await walk('skill://acme/billing/refunds');
        expect(found).toEqual(
          Object.fromEntries(refunds.resources.map((file: { uri: string; size: number }) => [file.uri, file.size])),
        );
        // Prefix directories above skills are directories too.
        const { items: top } = await allPages(wire(), 'resources/directory/read', 'resources', { uri: 'skill://acme' });
        expect(top).toEqual([{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }]);
      });

      it('answers -32602 for what is not a served skill or directory, and the core code for an unknown file', async () => {
        const request = wire().request;
        expect(await codeOf(request('skills/get', { uri: 'skill://nope/SKILL.md' }))).toBe(-32602);
        expect(await codeOf(request('skills/get', { uri: 'skill://acme/billing/refunds/references/GUIDE.md' }))).toBe(
          -32602,
        );
        expect(await codeOf(request('skills/get', {}))).toBe(-32602);
        expect(
          await codeOf(request('resources/directory/read', { uri: 'skill://acme/billing/refunds/SKILL.md' })),
        ).toBe(-32602);
        expect(await codeOf(request('resources/directory/read', { uri: 'skill://nowhere' }))).toBe(-32602);
        expect(await codeOf(request('skills/list', { cursor: 'not-a-cursor' }))).toBe(-32602);
        const missing = {
          jsonrpc: '2.0',
          id: 9,
          method: 'resources/read',
          params: { uri: 'skill://acme/billing/refunds/missing.md' },
        };
        if (wireName === 'legacy') {
          const raw = await legacyPost(running.mcpUrl, missing, { sessionId: legacy.sessionId });
          expect(raw.messages[0]).toMatchObject({ error: { code: -32002 } });
        } else {
          expect(await codeOf(wire().read('skill://acme/billing/refunds/missing.md'))).toBe(-32602);
        }
      });

      it('serves a dynamic skill from its provider at read time, and an unlisted one by URI', async () => {
        const dynamic = await wire().request('skills/get', { uri: 'skill://reports/daily-digest/SKILL.md' });
        expect(dynamic.skill).toEqual({
          uri: 'skill://reports/daily-digest/SKILL.md',
          frontmatter: { name: 'daily-digest', description: "Today's digest, produced at each read." },
          resources: 'dynamic',
        });
        const first = (await wire().read('skill://reports/daily-digest/data/today.md')).contents[0].text;
        const second = (await wire().read('skill://reports/daily-digest/data/today.md')).contents[0].text;
        expect(first).toMatch(/^read \d+\n$/);
        expect(second).not.toBe(first);
        const { items } = await allPages(wire(), 'resources/directory/read', 'resources', {
          uri: 'skill://reports/daily-digest',
        });
        expect(items.map((child) => child.uri)).toEqual([
          'skill://reports/daily-digest/SKILL.md',
          'skill://reports/daily-digest/data',
        ]);

        const unlisted = await wire().request('skills/get', { uri: 'skill://internal/unlisted-helper/SKILL.md' });
        expect(unlisted.skill.frontmatter.name).toBe('unlisted-helper');
        const text = (await wire().read('skill://internal/unlisted-helper/SKILL.md')).contents[0].text!;
        expect(sha256(Buffer.from(text))).toBe(unlisted.skill.resources[0].digest);
      });
    });
  }

  it('serves the three methods with resultType to a client that declared no extension, without Mcp-Name', async () => {
    // Raw requests: the official client drops resultType from what it returns. No extension in clientCapabilities.
    const calls = [
      { method: 'skills/list', params: {} },
      { method: 'skills/get', params: { uri: 'skill://ops/rollout/SKILL.md' } },
      { method: 'resources/directory/read', params: { uri: 'skill://ops/rollout' } },
    ];
    for (const call of calls) {
      const response = await mcpPost(running.mcpUrl, call);
      expect(response.headers.get('mcp-name')).toBeNull();
      expect(response.status, response.text).toBe(200);
      expect((response.json as { result: Record<string, unknown> }).result).toMatchObject({
        resultType: 'complete',
        ttlMs: 1234,
        cacheScope: 'public',
      });
    }
    const legacyList = await legacyPost(
      running.mcpUrl,
      { id: 3, method: 'skills/list', params: {} },
      { sessionId: legacy.sessionId },
    );
    expect(legacyList.messages[0]).toMatchObject({ result: { skills: expect.any(Array) } });
    expect(legacyList.messages[0]).not.toHaveProperty('result.ttlMs');
    expect(LEGACY_VERSION).toBe('2025-11-25');
  });
});

describe.each(ADAPTERS)('skills per caller (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(adapter, {
      imports: [
        McpModule.forRoot(
          options({
            skills: { roots: [roots.main, { directory: roots.restricted, scopes: ['skills:admin'] }] },
            principal: (request) => (request as { headers: Record<string, string | undefined> }).headers['x-user'],
            // The nested skill only for the lead; everything else as scopes say.
            visibility: (handler, caller) =>
              handler.uri !== 'skill://acme/billing/refunds/escalation/SKILL.md' || caller.principal === 'lead',
          }),
        ),
      ],
    });
  });
  afterAll(() => running?.close());

  const clientAs = (user: string) =>
    connectClient(running.mcpUrl, {
      fetch: (input, init) =>
        fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-user': user } }),
    });

  it('lists only what each caller may see, privately, and refuses the rest as the access policy does', async () => {
    const lead = wireOf('modern', await clientAs('lead'));
    const clerk = wireOf('modern', await clientAs('clerk'));
    const leadPage = await allPages(lead, 'skills/list', 'skills');
    const clerkPage = await allPages(clerk, 'skills/list', 'skills');
    expect(leadPage.items.map((entry) => entry.uri)).toContain('skill://acme/billing/refunds/escalation/SKILL.md');
    expect(clerkPage.items.map((entry) => entry.uri)).not.toContain('skill://acme/billing/refunds/escalation/SKILL.md');
    for (const items of [leadPage.items, clerkPage.items])
      expect(items.map((entry) => entry.uri)).not.toContain('skill://admin/secret-ops/SKILL.md');
    expect(leadPage.pages[0].cacheScope).toBe('private');
    // Hidden by the hook: answered as an unknown skill. Lacking the scopes: refused with 403.
    expect(await codeOf(clerk.request('skills/get', { uri: 'skill://acme/billing/refunds/escalation/SKILL.md' }))).toBe(
      -32602,
    );
    expect(
      await codeOf(lead.request('skills/get', { uri: 'skill://acme/billing/refunds/escalation/SKILL.md' })),
    ).toBeUndefined();
    await expect(lead.request('skills/get', { uri: 'skill://admin/secret-ops/SKILL.md' })).rejects.toThrow(
      /Insufficient scope/,
    );
    expect((await clerk.listResources()).map((resource) => resource.uri)).not.toContain(
      'skill://admin/secret-ops/SKILL.md',
    );
    expect(await codeOf(clerk.request('resources/directory/read', { uri: 'skill://admin' }))).toBe(-32602);
  });
});

describe('skills in the testing kit (in process)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot(
          options({ skills: { roots: [roots.main, { directory: roots.restricted, scopes: ['skills:admin'] }] } }),
        ),
      ],
      providers: [ProviderSkills],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(() => app?.close());

  it('lists, gets and reads skills; a caller without the scopes does not see the restricted one', async () => {
    const client = await McpTestingClient.create(app);
    const skills = await client.listSkills();
    expect(skills.map((entry) => entry.uri)).toContain('skill://admin/secret-ops/SKILL.md'); // a local call is trusted
    const entry = await client.getSkill('skill://ops/rollout/SKILL.md');
    expect(entry.frontmatter.name).toBe('rollout');
    const children = await client.readDirectory('skill://ops/rollout');
    expect(children).toEqual([
      {
        uri: 'skill://ops/rollout/SKILL.md',
        name: 'SKILL.md',
        mimeType: 'text/markdown',
        size: entry.resources !== 'dynamic' ? entry.resources[0].size : -1,
      },
    ]);

    const outsider = client.as({ subject: 'outsider' });
    expect((await outsider.listSkills()).map((skill) => skill.uri)).not.toContain('skill://admin/secret-ops/SKILL.md');
    await expect(outsider.getSkill('skill://admin/secret-ops/SKILL.md')).rejects.toBeInstanceOf(McpTestingError);
    const admin = client.as({ subject: 'admin', scopes: ['skills:admin'] });
    expect((await admin.getSkill('skill://admin/secret-ops/SKILL.md')).frontmatter.name).toBe('secret-ops');
  });
});

describe('skills checked at bootstrap', () => {
  /** Boots a module whose only skills root holds `files`; resolves with the bootstrap error. */
  async function bootError(files: Record<string, string>): Promise<Error> {
    const root = mkdtempSync(join(fixtures, 'bad-'));
    for (const [path, content] of Object.entries(files)) write(root, path, content);
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot(options({ skills: { roots: [root] } }))],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
    } catch (error) {
      return error as Error;
    } finally {
      await app.close().catch(() => undefined);
    }
    throw new Error('bootstrap did not fail');
  }

  it.each([
    ['no frontmatter', 'x/bad-one/SKILL.md', '# no frontmatter\n', /does not begin with a YAML frontmatter block/],
    [
      'a name that breaks the naming rules',
      'x/Bad-Name/SKILL.md',
      '---\nname: Bad-Name\ndescription: d\n---\n',
      /the name "Bad-Name" must be 1-64 characters/,
    ],
    [
      'a name that is not the folder',
      'x/folder/SKILL.md',
      '---\nname: other\ndescription: d\n---\n',
      /must end with the skill's name "other"/,
    ],
    ['no description', 'x/no-desc/SKILL.md', '---\nname: no-desc\n---\n', /needs a non-empty string "description"/],
    ['invalid YAML', 'x/broken/SKILL.md', '---\nname: broken\nname: twice\ndescription: d\n---\n', /not valid YAML/],
  ])('refuses a SKILL.md with %s, naming the file', async (_label, path, content, problem) => {
    const error = await bootError({ [path]: content });
    expect(error.name).toBe('McpSkillDefinitionError');
    expect(error.message).toMatch(problem);
    expect(error.message).toContain(join('x', path.split('/')[1], 'SKILL.md'));
  });

  it('refuses a provider skill whose path does not end with its name', async () => {
    @Injectable()
    class Misnamed {
      @McpSkill({ path: 'ops/right-name' })
      files(): McpSkillFiles {
        return { 'SKILL.md': '---\nname: wrong-name\ndescription: d\n---\n' };
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'x', version: '1' })],
      providers: [Misnamed],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(
      /Misnamed\.files \(SKILL\.md\).*must end with the skill's name "wrong-name"/,
    );
    await app.close().catch(() => undefined);
  });
});

describe('the examples of docs/skills.md', () => {
  it('serve what the guide says', async () => {
    const { ReleaseSkills, OnCallSkill } = await import('../../docs/examples/skills/provider-skills.js');
    const { checkSkills } = await import('../../docs/examples/skills/skills-testing.js');
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'docs', version: '1.0.0' })],
      providers: [ReleaseSkills, OnCallSkill],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await checkSkills(app);
      const client = await McpTestingClient.create(app);
      expect((await client.getSkill('skill://ops/who-is-on-call/SKILL.md')).resources).toBe('dynamic');
      expect((await client.readResource('skill://ops/who-is-on-call/roster.md')).text()).toBe('On call now: alice\n');
    } finally {
      await app.close();
    }
  });
});
