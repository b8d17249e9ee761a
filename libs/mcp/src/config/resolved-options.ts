import { Inject, Injectable } from '@nestjs/common';
import type { McpCacheHints, McpImplementation } from '../protocol/mcp-wire.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp-module-definition.js';
import type { McpCacheHintOptions, McpModuleOptions } from './mcp-options.interface.js';

const DEFAULT_CACHE_HINTS: McpCacheHints = { ttlMs: 0, cacheScope: 'private' };

/** The module options with every default applied: the one place where defaults are merged. */
@Injectable()
export class McpResolvedOptions {
  readonly serverInfo: McpImplementation;
  readonly instructions?: string;
  readonly allowedHosts?: ReadonlySet<string>;
  readonly allowedOrigins?: ReadonlySet<string>;
  readonly maxBodyBytes: number;
  readonly pageSize: number;
  readonly requestStateKeys: readonly string[];
  readonly requestStateTtlMs: number;
  readonly serverInfoInResults: boolean;
  readonly invalidToolArguments: 'result' | 'protocol';
  readonly progress: 'mcp' | 'stderr';
  readonly maxQueuedFrames: number;
  readonly maxQueuedBytes: number;
  readonly principal?: (request: unknown) => string | undefined;
  readonly maxListenStreams: number;
  readonly keepAliveMs: number;
  readonly callTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly maxJsonDepth: number;
  readonly sessionIdleMs: number;
  readonly maxSessions: number;
  readonly clientRequestTimeoutMs: number;
  private readonly cacheHints: McpCacheHintOptions;

  constructor(@Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions) {
    if (!options?.name || !options?.version) {
      throw new Error('McpModule: options "name" and "version" are required');
    }
    this.serverInfo = stripUndefined({
      name: options.name,
      version: options.version,
      title: options.title,
      description: options.description,
      websiteUrl: options.websiteUrl,
      icons: options.icons,
    });
    this.instructions = options.instructions;
    this.allowedHosts = options.allowedHosts && new Set(options.allowedHosts.map((host) => host.toLowerCase()));
    this.allowedOrigins = options.allowedOrigins && new Set(options.allowedOrigins.map((origin) => origin.toLowerCase()));
    this.maxBodyBytes = positive(options.maxBodyBytes, 4 * 1024 * 1024, 'maxBodyBytes');
    this.pageSize = positive(options.pageSize, 100, 'pageSize');
    this.requestStateKeys = options.requestState?.keys ?? [];
    this.requestStateTtlMs = positive(options.requestState?.ttlMs, 5 * 60_000, 'requestState.ttlMs');
    this.serverInfoInResults = options.serverInfoInResults ?? true;
    this.invalidToolArguments = options.invalidToolArguments ?? 'result';
    this.progress = options.progress ?? 'mcp';
    if (this.progress !== 'mcp' && this.progress !== 'stderr') {
      throw new Error(`McpModule: option "progress" must be 'mcp' or 'stderr'`);
    }
    this.cacheHints = options.cacheHints ?? {};
    this.maxQueuedFrames = positive(options.streaming?.maxQueuedFrames, 128, 'streaming.maxQueuedFrames');
    this.maxQueuedBytes = positive(options.streaming?.maxQueuedBytes, 64 * 1024, 'streaming.maxQueuedBytes');
    this.principal = options.principal;
    this.maxListenStreams = positive(options.maxListenStreams, 10_000, 'maxListenStreams');
    this.keepAliveMs = positive(options.keepAliveMs, 15_000, 'keepAliveMs');
    this.callTimeoutMs = options.callTimeoutMs === 0 ? 0 : positive(options.callTimeoutMs, 5 * 60_000, 'callTimeoutMs');
    this.shutdownTimeoutMs = positive(options.shutdownTimeoutMs, 10_000, 'shutdownTimeoutMs');
    this.maxJsonDepth = positive(options.maxJsonDepth, 64, 'maxJsonDepth');
    this.sessionIdleMs = positive(options.sessionIdleMs, 30 * 60_000, 'sessionIdleMs');
    this.maxSessions = positive(options.maxSessions, 10_000, 'maxSessions');
    this.clientRequestTimeoutMs = positive(options.clientRequestTimeoutMs, 10 * 60_000, 'clientRequestTimeoutMs');
  }

  /** Cache hints for one kind of cacheable result. */
  cacheHintsFor(kind: Exclude<keyof McpCacheHintOptions, 'default'>): McpCacheHints {
    return this.cacheHints[kind] ?? this.cacheHints.default ?? DEFAULT_CACHE_HINTS;
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`McpModule: option "${name}" must be a positive number`);
  }
  return value;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
