import type { ServerLaunch } from './server-process.js';

/** Every server of the comparison, by id. */
export type ServerId = 'nest-mcp-express' | 'nest-mcp-fastify' | 'nest-express' | 'nest-fastify' | 'node-http' | 'sdk' | 'rekog-express';

export interface ServerSpec {
  id: ServerId;
  label: string;
  /** `subject`: nest-mcp; `floor`: no MCP at all, the same bytes; `peer`: another MCP server. */
  role: 'subject' | 'floor' | 'peer';
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
};

export const ALL_SERVER_IDS = Object.keys(SERVERS) as ServerId[];
