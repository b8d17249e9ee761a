import { Inject, Injectable } from '@nestjs/common';
import { MCP_LOG_LEVELS, type McpCacheHints, type McpCacheScope, type McpImplementation, type McpLogLevel } from '../protocol/mcp-wire.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp-module-definition.js';
import { isAbsolute, resolve } from 'node:path';
import type { McpAuthOptions, McpCacheHintOptions, McpModuleOptions, McpSkillsOptions, McpTasksOptions } from './mcp-options.interface.js';
import type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';
import type { McpDeliveryAuthorizer } from '../protocol/delivery-authorizer.interface.js';
import { STATELESS_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/protocol-version.constants.js';
import type { McpAroundHandler } from '../protocol/mcp-handler-call.interface.js';

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
  /**
   * `requestState.singleUse`, checked: `true` for the built-in in-memory store (created by `McpMrtrService`, since
   * mrtr/ is a layer above config/), the app's own store, or undefined when states are not single-use.
   */
  readonly requestStateSingleUse?: true | McpRequestStateStore;
  readonly serverInfoInResults: boolean;
  readonly invalidToolArguments: 'result' | 'protocol';
  readonly progress: 'mcp' | 'stderr';
  readonly progressFromWithoutToken: 'stderr' | 'drop';
  /** Whether the message channel is on (`logging` is not `false`). */
  readonly logging: boolean;
  /** `logging.defaultLevel`: the level of `ctx.log(data)`. */
  readonly defaultLogLevel: McpLogLevel;
  readonly maxQueuedFrames: number;
  readonly maxQueuedBytes: number;
  readonly principal?: (request: unknown) => string | undefined;
  readonly aroundHandler?: McpAroundHandler;
  readonly maxListenStreams: number;
  readonly maxListenStreamsPerPrincipal: number;
  readonly maxListenStreamsPerAddress: number;
  readonly authorizeDelivery?: McpDeliveryAuthorizer;
  readonly keepAliveMs: number;
  readonly callTimeoutMs: number;
  readonly maxCallsInFlight: number;
  readonly maxCallsInFlightPerPrincipal: number;
  readonly maxCallsInFlightPerAddress: number;
  readonly shutdownTimeoutMs: number;
  readonly maxJsonDepth: number;
  readonly sessionIdleMs: number;
  readonly maxSessions: number;
  readonly maxSessionsPerPrincipal: number;
  readonly maxSessionsPerAddress: number;
  readonly maxSessionBytes: number;
  readonly maxInitializeBytes: number;
  readonly legacyWire: boolean;
  /** The revisions this server speaks, newest first: `server/discover` and `-32022` list these. */
  readonly supportedVersions: readonly string[];
  readonly clientRequestTimeoutMs: number;
  /** `tasks`, with every default applied. */
  readonly tasks: McpResolvedTasksOptions;
  /** `skills`, with every default applied (roots made absolute); `declared` says whether the option was given. */
  readonly skills: McpResolvedSkillsOptions;
  /**
   * `auth` as given (a frozen copy): checked in depth, and its verifier built, by `McpAuthenticator` (auth/), a layer
   * above this one. Undefined: no authorization.
   */
  readonly auth?: Readonly<McpAuthOptions>;
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
    this.requestStateSingleUse = singleUseStore(options.requestState?.singleUse);
    this.serverInfoInResults = options.serverInfoInResults ?? true;
    this.invalidToolArguments = options.invalidToolArguments ?? 'result';
    this.progress = options.progress ?? 'mcp';
    if (this.progress !== 'mcp' && this.progress !== 'stderr') {
      throw new Error(`McpModule: option "progress" must be 'mcp' or 'stderr'`);
    }
    this.progressFromWithoutToken = options.progressFromWithoutToken ?? 'stderr';
    if (this.progressFromWithoutToken !== 'stderr' && this.progressFromWithoutToken !== 'drop') {
      throw new Error(`McpModule: option "progressFromWithoutToken" must be 'stderr' or 'drop'`);
    }
    [this.logging, this.defaultLogLevel] = resolveLogging(options.logging);
    this.cacheHints = options.cacheHints ?? {};
    this.maxQueuedFrames = positive(options.streaming?.maxQueuedFrames, 128, 'streaming.maxQueuedFrames');
    this.maxQueuedBytes = positive(options.streaming?.maxQueuedBytes, 64 * 1024, 'streaming.maxQueuedBytes');
    this.principal = options.principal;
    if (options.aroundHandler !== undefined && typeof options.aroundHandler !== 'function') {
      throw new Error('McpModule: option "aroundHandler" must be a function (call, run) => run()');
    }
    this.aroundHandler = options.aroundHandler;
    this.maxListenStreams = positive(options.maxListenStreams, 10_000, 'maxListenStreams');
    this.maxListenStreamsPerPrincipal = positive(options.maxListenStreamsPerPrincipal, 100, 'maxListenStreamsPerPrincipal');
    this.maxListenStreamsPerAddress = positive(options.maxListenStreamsPerAddress, 100, 'maxListenStreamsPerAddress');
    if (options.authorizeDelivery !== undefined && typeof options.authorizeDelivery !== 'function') {
      throw new Error('McpModule: option "authorizeDelivery" must be a function');
    }
    this.authorizeDelivery = options.authorizeDelivery;
    this.keepAliveMs = positive(options.keepAliveMs, 15_000, 'keepAliveMs');
    this.callTimeoutMs = options.callTimeoutMs === 0 ? 0 : positive(options.callTimeoutMs, 5 * 60_000, 'callTimeoutMs');
    this.maxCallsInFlight = positive(options.maxCallsInFlight, 1_000, 'maxCallsInFlight');
    this.maxCallsInFlightPerPrincipal = positive(options.maxCallsInFlightPerPrincipal, 128, 'maxCallsInFlightPerPrincipal');
    this.maxCallsInFlightPerAddress = positive(options.maxCallsInFlightPerAddress, 128, 'maxCallsInFlightPerAddress');
    this.shutdownTimeoutMs = positive(options.shutdownTimeoutMs, 10_000, 'shutdownTimeoutMs');
    this.maxJsonDepth = positive(options.maxJsonDepth, 64, 'maxJsonDepth');
    this.sessionIdleMs = positive(options.sessionIdleMs, 30 * 60_000, 'sessionIdleMs');
    this.maxSessions = positive(options.maxSessions, 10_000, 'maxSessions');
    this.maxSessionsPerPrincipal = positive(options.maxSessionsPerPrincipal, 100, 'maxSessionsPerPrincipal');
    this.maxSessionsPerAddress = positive(options.maxSessionsPerAddress, 100, 'maxSessionsPerAddress');
    this.maxSessionBytes = positive(options.maxSessionBytes, 64 * 1024 * 1024, 'maxSessionBytes');
    this.maxInitializeBytes = positive(options.maxInitializeBytes, 8 * 1024, 'maxInitializeBytes');
    if (options.legacyWire !== undefined && typeof options.legacyWire !== 'boolean') {
      throw new Error('McpModule: option "legacyWire" must be a boolean');
    }
    this.legacyWire = options.legacyWire ?? true;
    this.supportedVersions = this.legacyWire ? SUPPORTED_PROTOCOL_VERSIONS : STATELESS_PROTOCOL_VERSIONS;
    this.clientRequestTimeoutMs = positive(options.clientRequestTimeoutMs, 10 * 60_000, 'clientRequestTimeoutMs');
    this.tasks = resolveTasks(options.tasks ?? {});
    this.skills = resolveSkills(options.skills);
    this.auth = resolveAuth(options);
    requireSharedKeys(options, this.requestStateKeys);
  }

  /** Cache hints for one kind of cacheable result. */
  cacheHintsFor(kind: Exclude<keyof McpCacheHintOptions, 'default'>): McpCacheHints {
    return this.cacheHints[kind] ?? this.cacheHints.default ?? DEFAULT_CACHE_HINTS;
  }
}

/** The `tasks` options with their defaults; the store and runner stay as given (undefined: the in-memory ones). */
export interface McpResolvedTasksOptions {
  readonly store?: McpTasksOptions['store'];
  readonly runner?: McpTasksOptions['runner'];
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly maxTasksPerOwner: number;
  readonly maxTasks: number;
  readonly maxResultBytes: number;
}

function resolveTasks(tasks: McpTasksOptions): McpResolvedTasksOptions {
  const maxTtlMs = positive(tasks.maxTtlMs, 24 * 60 * 60_000, 'tasks.maxTtlMs');
  const defaultTtlMs = positive(tasks.defaultTtlMs, Math.min(60 * 60_000, maxTtlMs), 'tasks.defaultTtlMs');
  if (defaultTtlMs > maxTtlMs) throw new Error('McpModule: option "tasks.defaultTtlMs" must not exceed "tasks.maxTtlMs"');
  return {
    store: tasks.store,
    runner: tasks.runner,
    defaultTtlMs,
    maxTtlMs,
    pollIntervalMs: Math.ceil(positive(tasks.pollIntervalMs, 1_000, 'tasks.pollIntervalMs')),
    maxTasksPerOwner: positive(tasks.maxTasksPerOwner, 100, 'tasks.maxTasksPerOwner'),
    maxTasks: positive(tasks.maxTasks, 10_000, 'tasks.maxTasks'),
    maxResultBytes: positive(tasks.maxResultBytes, 1024 * 1024, 'tasks.maxResultBytes'),
  };
}

/**
 * `auth`, with the checks that concern the other options: with `auth` the caller is the verified token's, so the
 * request-based `principal` option would be a second, unverified source of identity.
 */
/** A `skills.roots` entry with its defaults: an absolute directory. */
export interface McpResolvedSkillRoot {
  readonly directory: string;
  /** `''` when none. */
  readonly prefix: string;
  readonly scopes: readonly string[];
  readonly listed: boolean;
}

/** The `skills` options with their defaults. */
export interface McpResolvedSkillsOptions {
  /** Whether the `skills` option was given (the extension is then advertised even without skills). */
  readonly declared: boolean;
  readonly roots: readonly McpResolvedSkillRoot[];
  readonly directoryRead: boolean;
  readonly ttlMs: number;
  readonly cacheScope: McpCacheScope;
}

function resolveSkills(skills: McpSkillsOptions | undefined): McpResolvedSkillsOptions {
  if (skills !== undefined && (typeof skills !== 'object' || skills === null)) throw new Error('McpModule: option "skills" must be an object');
  const roots = (skills?.roots ?? []).map((root, index): McpResolvedSkillRoot => {
    const given = typeof root === 'string' ? { directory: root } : root;
    if (typeof given?.directory !== 'string' || given.directory.length === 0) {
      throw new Error(`McpModule: option "skills.roots[${index}]" must be a directory path or { directory, prefix?, scopes?, listed? }`);
    }
    if (given.prefix !== undefined && typeof given.prefix !== 'string') throw new Error(`McpModule: option "skills.roots[${index}].prefix" must be a string`);
    if (given.scopes !== undefined && !Array.isArray(given.scopes)) throw new Error(`McpModule: option "skills.roots[${index}].scopes" must be an array of strings`);
    return Object.freeze({
      directory: isAbsolute(given.directory) ? given.directory : resolve(given.directory),
      prefix: given.prefix ?? '',
      scopes: Object.freeze([...(given.scopes ?? [])]),
      listed: given.listed ?? true,
    });
  });
  const cacheScope = skills?.cacheScope ?? 'public';
  if (cacheScope !== 'public' && cacheScope !== 'private') throw new Error(`McpModule: option "skills.cacheScope" must be 'public' or 'private'`);
  if (skills?.directoryRead !== undefined && typeof skills.directoryRead !== 'boolean') {
    throw new Error('McpModule: option "skills.directoryRead" must be a boolean');
  }
  const ttlMs = skills?.ttlMs ?? 60_000;
  if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new Error('McpModule: option "skills.ttlMs" must be a non-negative integer');
  return Object.freeze({ declared: skills !== undefined, roots: Object.freeze(roots), directoryRead: skills?.directoryRead ?? true, ttlMs, cacheScope });
}

function resolveAuth(options: McpModuleOptions): Readonly<McpAuthOptions> | undefined {
  const auth = options.auth;
  if (auth === undefined) return undefined;
  if (typeof auth !== 'object' || auth === null) throw new Error('McpModule: option "auth" must be an object (McpAuthOptions)');
  if (options.principal !== undefined) {
    throw new Error(
      'McpModule: options "principal" and "auth" cannot be used together: with "auth" the caller is the subject of the ' +
        'verified bearer token. Map the token to your principal with "auth.principal" (e.g. `auth: { …, principal: (token) ' +
        '=> token.claims.email }`) and remove "principal".',
    );
  }
  return Object.freeze({ ...auth });
}

/**
 * A component that serves several replicas (`sharedAcrossReplicas`) needs the replicas to share the keys that seal
 * `requestState`: with the per-process random key, a round whose retry reaches another replica cannot be opened.
 */
function requireSharedKeys(options: McpModuleOptions, keys: readonly string[]): void {
  if (keys.length > 0) return;
  const components: Array<[string, unknown]> = [
    ['eventBus', options.eventBus],
    ['tasks.store', options.tasks?.store],
    ['requestState.singleUse', options.requestState?.singleUse],
  ];
  const shared = components.filter(([, component]) => isShared(component));
  if (shared.length === 0) return;
  const named = shared.map(([option, component]) => `${option} (${componentName(component)})`).join(', ');
  throw new Error(
    `McpModule: ${named} serves several replicas, so requestState.keys is required: a per-process random key breaks ` +
      'every round whose retry reaches another replica. Generate a key with `openssl rand -base64 32` and give the ' +
      'same requestState.keys to every replica.',
  );
}

function isShared(component: unknown): boolean {
  return typeof component === 'object' && component !== null && (component as { sharedAcrossReplicas?: unknown }).sharedAcrossReplicas === true;
}

function componentName(component: unknown): string {
  const name = (component as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'a shared component';
}

/** `logging`: `false` turns the message channel off; an object (or nothing) keeps it on, with its default level. */
function resolveLogging(logging: McpModuleOptions['logging']): [boolean, McpLogLevel] {
  if (logging === false) return [false, 'info'];
  if (logging !== undefined && (typeof logging !== 'object' || logging === null)) {
    throw new Error('McpModule: option "logging" must be false or { defaultLevel? }');
  }
  const level = logging?.defaultLevel ?? 'info';
  if (!(MCP_LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`McpModule: option "logging.defaultLevel" must be one of ${MCP_LOG_LEVELS.join(', ')}`);
  }
  return [true, level];
}

function singleUseStore(singleUse: boolean | McpRequestStateStore | undefined): true | McpRequestStateStore | undefined {
  if (singleUse === undefined || singleUse === false) return undefined;
  if (singleUse === true) return true;
  if (typeof singleUse?.consume !== 'function') {
    throw new Error('McpModule: option "requestState.singleUse" must be true, false or a store with a consume(stateId, expiresAt) method');
  }
  return singleUse;
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
