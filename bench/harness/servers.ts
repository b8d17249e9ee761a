import { join } from 'node:path';
import type { ServerLaunch } from './server-process.js';

/** Every server of the comparison, by id. */
export type ServerId =
  | 'nest-mcp-express'
  | 'nest-mcp-fastify'
  | 'nest-express'
  | 'nest-fastify'
  | 'node-http'
  | 'sdk'
  | 'rekog-express'
  | 'baseline-express'
  | 'baseline-fastify';

export interface ServerSpec {
  id: ServerId;
  label: string;
  /**
   * `subject`: nest-mcp; `floor`: no MCP at all, the same bytes; `peer`: another MCP server; `baseline`: nest-mcp
   * built from another checkout (`--baseline DIR`), to compare a change against what it changes in one run.
   */
  role: 'subject' | 'floor' | 'peer' | 'baseline';
  launch: ServerLaunch;
  /** Where `echo` is called. */
  echoPath: string;
  /** Where `count` is called (floors stream the frames on their own route). */
  streamPath: string;
}

export const SERVERS: Record<ServerId, ServerSpec> = {
  'nest-mcp-express': {
    id: 'nest-mcp-express',
    label: 'nest-mcp (Express)',
    role: 'subject',
    launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'express'] },
    echoPath: '/mcp',
    streamPath: '/mcp',
  },
  'nest-mcp-fastify': {
    id: 'nest-mcp-fastify',
    label: 'nest-mcp (Fastify)',
    role: 'subject',
    launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'fastify'] },
    echoPath: '/mcp',
    streamPath: '/mcp',
  },
  'nest-express': {
    id: 'nest-express',
    label: 'bare Nest @Post (Express)',
    role: 'floor',
    launch: { script: 'nest-floor.server.js', args: ['--adapter', 'express'] },
    echoPath: '/mcp',
    streamPath: '/stream',
  },
  'nest-fastify': {
    id: 'nest-fastify',
    label: 'bare Nest @Post (Fastify)',
    role: 'floor',
    launch: { script: 'nest-floor.server.js', args: ['--adapter', 'fastify'] },
    echoPath: '/mcp',
    streamPath: '/stream',
  },
  'node-http': {
    id: 'node-http',
    label: 'bare node:http',
    role: 'floor',
    launch: { script: 'node-http.server.js', args: [] },
    echoPath: '/mcp',
    streamPath: '/stream',
  },
  sdk: {
    id: 'sdk',
    label: 'official SDK v2 (node:http)',
    role: 'peer',
    launch: { script: 'sdk.server.js', args: [] },
    echoPath: '/mcp',
    streamPath: '/mcp',
  },
  'rekog-express': {
    id: 'rekog-express',
    label: '@rekog/mcp-nest (Express)',
    role: 'peer',
    launch: { script: 'rekog.server.js', args: ['--adapter', 'express'] },
    echoPath: '/mcp',
    streamPath: '/mcp',
  },
  // Placeholders until `useBaseline` points them at the other checkout's build.
  'baseline-express': {
    id: 'baseline-express',
    label: 'nest-mcp baseline (Express)',
    role: 'baseline',
    launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'express'] },
    echoPath: '/mcp',
    streamPath: '/mcp',
  },
  'baseline-fastify': {
    id: 'baseline-fastify',
    label: 'nest-mcp baseline (Fastify)',
    role: 'baseline',
    launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'fastify'] },
    echoPath: '/mcp',
    streamPath: '/mcp',
  },
};

/** The servers of a default run: everything but the baseline build, which only `--baseline DIR` brings in. */
export const ALL_SERVER_IDS = (Object.keys(SERVERS) as ServerId[]).filter((id) => SERVERS[id].role !== 'baseline');

/** The baseline of each nest-mcp subject. */
export const BASELINE_OF: Partial<Record<ServerId, ServerId>> = {
  'nest-mcp-express': 'baseline-express',
  'nest-mcp-fastify': 'baseline-fastify',
};

let baseline: { servers: string; commit: string } | undefined;

/** With `--baseline DIR`: another bench server of the baseline's build (absolute path) and its commit. */
export function baselineBuild(script: string): { script: string; commit: string } | undefined {
  return baseline && { script: join(baseline.servers, script), commit: baseline.commit };
}

/**
 * Points the baseline servers at the nest-mcp bench server built in another checkout (`builtServers`: its
 * dist/bench/bench/servers), labelled with that checkout's commit.
 */
export function useBaseline(builtServers: string, commit: string): void {
  baseline = { servers: builtServers, commit };
  for (const [adapter, id] of [
    ['Express', 'baseline-express'],
    ['Fastify', 'baseline-fastify'],
  ] as const) {
    SERVERS[id].label = `nest-mcp ${commit} (${adapter})`;
    SERVERS[id].launch = { ...SERVERS[id].launch, script: join(builtServers, 'nest-mcp.server.js') };
  }
}
