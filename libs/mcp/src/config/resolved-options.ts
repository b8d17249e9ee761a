import type { McpCallSettings } from '../protocol/call-settings.interface.js';
import { Inject, Injectable } from '@nestjs/common';
import {
  MCP_LOG_LEVELS,
  type McpCacheHints,
  type McpCacheScope,
  type McpImplementation,
  type McpLogLevel,
} from '../protocol/mcp-wire.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp-module-definition.js';
import { isAbsolute, resolve } from 'node:path';
import type {
  McpAuthOptions,
  McpCacheHintOptions,
  McpEventsOptions,
  McpModuleOptions,
  McpPlaygroundOptions,
  McpSkillsOptions,
  McpTasksOptions,
  McpTelemetryOptions,
  McpWebhookOptions,
} from './mcp-options.interface.js';
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
  /** What every call's context reads of these options (`logging`, its default level, `progressFromWithoutToken`). */
  readonly callSettings: McpCallSettings;
  readonly maxQueuedFrames: number;
  readonly maxQueuedBytes: number;
  readonly principal?: (request: unknown) => string | undefined;
  readonly aroundHandler?: McpAroundHandler;
  /** `telemetry`, checked; `false`: off. */
  readonly telemetry: McpResolvedTelemetryOptions | false;
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
  /** The route token at the start of this replica's 2025-11-25 session ids; undefined: ids are random only. */
  readonly sessionRoute?: string;
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
  /** `events`, with every default applied. */
  readonly events: McpResolvedEventsOptions;
  /**
   * `auth` as given (a frozen copy): checked in depth, and its verifier built, by `McpAuthenticator` (auth/), a layer
   * above this one. Undefined: no authorization.
   */
  readonly auth?: Readonly<McpAuthOptions>;
  /**
   * `playground` when it is on (a frozen copy, `{}` for `true` or the default), undefined when it is off: `false`, or
   * not set while `NODE_ENV` is `production`.
   */
  readonly playground?: Readonly<McpPlaygroundOptions>;
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
    this.allowedOrigins =
      options.allowedOrigins && new Set(options.allowedOrigins.map((origin) => origin.toLowerCase()));
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
    this.callSettings = Object.freeze({
      logging: this.logging,
      defaultLogLevel: this.defaultLogLevel,
      progressFromWithoutToken: this.progressFromWithoutToken,
    });
    this.cacheHints = options.cacheHints ?? {};
    this.maxQueuedFrames = positive(options.streaming?.maxQueuedFrames, 128, 'streaming.maxQueuedFrames');
    this.maxQueuedBytes = positive(options.streaming?.maxQueuedBytes, 64 * 1024, 'streaming.maxQueuedBytes');
    this.principal = options.principal;
    if (options.aroundHandler !== undefined && typeof options.aroundHandler !== 'function') {
      throw new Error('McpModule: option "aroundHandler" must be a function (call, run) => run()');
    }
    this.aroundHandler = options.aroundHandler;
    this.telemetry = resolveTelemetry(options.telemetry);
    this.maxListenStreams = positive(options.maxListenStreams, 10_000, 'maxListenStreams');
    this.maxListenStreamsPerPrincipal = positive(
      options.maxListenStreamsPerPrincipal,
      100,
      'maxListenStreamsPerPrincipal',
    );
    this.maxListenStreamsPerAddress = positive(options.maxListenStreamsPerAddress, 100, 'maxListenStreamsPerAddress');
    if (options.authorizeDelivery !== undefined && typeof options.authorizeDelivery !== 'function') {
      throw new Error('McpModule: option "authorizeDelivery" must be a function');
    }
    this.authorizeDelivery = options.authorizeDelivery;
    this.keepAliveMs = positive(options.keepAliveMs, 15_000, 'keepAliveMs');
    this.callTimeoutMs = options.callTimeoutMs === 0 ? 0 : positive(options.callTimeoutMs, 5 * 60_000, 'callTimeoutMs');
    this.maxCallsInFlight = positive(options.maxCallsInFlight, 1_000, 'maxCallsInFlight');
    this.maxCallsInFlightPerPrincipal = positive(
      options.maxCallsInFlightPerPrincipal,
      128,
      'maxCallsInFlightPerPrincipal',
    );
    this.maxCallsInFlightPerAddress = positive(options.maxCallsInFlightPerAddress, 128, 'maxCallsInFlightPerAddress');
    this.shutdownTimeoutMs = positive(options.shutdownTimeoutMs, 10_000, 'shutdownTimeoutMs');
    this.maxJsonDepth = positive(options.maxJsonDepth, 64, 'maxJsonDepth');
    this.sessionIdleMs = positive(options.sessionIdleMs, 30 * 60_000, 'sessionIdleMs');
    this.sessionRoute = sessionRoute(options.sessionRoute);
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
    this.events = resolveEvents(options.events);
    this.auth = resolveAuth(options);
    this.playground = resolvePlayground(options.playground);
    requireSharedKeys(options, this.requestStateKeys);
  }

  /** Cache hints for one kind of cacheable result. */
  cacheHintsFor(kind: Exclude<keyof McpCacheHintOptions, 'default'>): McpCacheHints {
    return this.cacheHints[kind] ?? this.cacheHints.default ?? DEFAULT_CACHE_HINTS;
  }
}

/** The `telemetry` options with their defaults. */
export interface McpResolvedTelemetryOptions {
  readonly tracerProvider?: McpTelemetryOptions['tracerProvider'];
  readonly meterProvider?: McpTelemetryOptions['meterProvider'];
  readonly recordToolArguments: boolean;
  readonly recordToolResults: boolean;
  readonly recordPromptVariables: boolean;
  readonly resourceUriInMetrics: boolean;
  readonly clientErrorCodes?: ReadonlySet<number>;
}

function resolveTelemetry(options: false | McpTelemetryOptions | undefined): McpResolvedTelemetryOptions | false {
  if (options === false) return false;
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new Error('McpModule: option "telemetry" must be false or an object');
  }
  const given = options ?? {};
  for (const key of [
    'recordToolArguments',
    'recordToolResults',
    'recordPromptVariables',
    'resourceUriInMetrics',
  ] as const) {
    if (given[key] !== undefined && typeof given[key] !== 'boolean')
      throw new Error(`McpModule: option "telemetry.${key}" must be a boolean`);
  }
  if (given.tracerProvider !== undefined && typeof given.tracerProvider?.getTracer !== 'function') {
    throw new Error('McpModule: option "telemetry.tracerProvider" must have getTracer(name, version)');
  }
  if (given.meterProvider !== undefined && typeof given.meterProvider?.getMeter !== 'function') {
    throw new Error('McpModule: option "telemetry.meterProvider" must have getMeter(name, version)');
  }
  const codes = given.clientErrorCodes;
  if (codes !== undefined && (!Array.isArray(codes) || !codes.every((code) => Number.isSafeInteger(code)))) {
    throw new Error('McpModule: option "telemetry.clientErrorCodes" must be an array of integers');
  }
  return {
    ...(given.tracerProvider && { tracerProvider: given.tracerProvider }),
    ...(given.meterProvider && { meterProvider: given.meterProvider }),
    recordToolArguments: given.recordToolArguments ?? false,
    recordToolResults: given.recordToolResults ?? false,
    recordPromptVariables: given.recordPromptVariables ?? false,
    resourceUriInMetrics: given.resourceUriInMetrics ?? false,
    ...(codes && codes.length > 0 && { clientErrorCodes: new Set(codes) }),
  };
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
  readonly maxRecordBytes: number;
}

function resolveTasks(tasks: McpTasksOptions): McpResolvedTasksOptions {
  const maxTtlMs = positive(tasks.maxTtlMs, 24 * 60 * 60_000, 'tasks.maxTtlMs');
  const defaultTtlMs = positive(tasks.defaultTtlMs, Math.min(60 * 60_000, maxTtlMs), 'tasks.defaultTtlMs');
  if (defaultTtlMs > maxTtlMs)
    throw new Error('McpModule: option "tasks.defaultTtlMs" must not exceed "tasks.maxTtlMs"');
  return {
    store: tasks.store,
    runner: tasks.runner,
    defaultTtlMs,
    maxTtlMs,
    pollIntervalMs: Math.ceil(positive(tasks.pollIntervalMs, 1_000, 'tasks.pollIntervalMs')),
    maxTasksPerOwner: positive(tasks.maxTasksPerOwner, 100, 'tasks.maxTasksPerOwner'),
    maxTasks: positive(tasks.maxTasks, 10_000, 'tasks.maxTasks'),
    maxResultBytes: positive(tasks.maxResultBytes, 1024 * 1024, 'tasks.maxResultBytes'),
    maxRecordBytes: positive(tasks.maxRecordBytes, 256 * 1024, 'tasks.maxRecordBytes'),
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
  if (skills !== undefined && (typeof skills !== 'object' || skills === null))
    throw new Error('McpModule: option "skills" must be an object');
  const roots = (skills?.roots ?? []).map((root, index): McpResolvedSkillRoot => {
    const given = typeof root === 'string' ? { directory: root } : root;
    if (typeof given?.directory !== 'string' || given.directory.length === 0) {
      throw new Error(
        `McpModule: option "skills.roots[${index}]" must be a directory path or { directory, prefix?, scopes?, listed? }`,
      );
    }
    if (given.prefix !== undefined && typeof given.prefix !== 'string')
      throw new Error(`McpModule: option "skills.roots[${index}].prefix" must be a string`);
    if (given.scopes !== undefined && !Array.isArray(given.scopes))
      throw new Error(`McpModule: option "skills.roots[${index}].scopes" must be an array of strings`);
    return Object.freeze({
      directory: isAbsolute(given.directory) ? given.directory : resolve(given.directory),
      prefix: given.prefix ?? '',
      scopes: Object.freeze([...(given.scopes ?? [])]),
      listed: given.listed ?? true,
    });
  });
  const cacheScope = skills?.cacheScope ?? 'public';
  if (cacheScope !== 'public' && cacheScope !== 'private')
    throw new Error(`McpModule: option "skills.cacheScope" must be 'public' or 'private'`);
  if (skills?.directoryRead !== undefined && typeof skills.directoryRead !== 'boolean') {
    throw new Error('McpModule: option "skills.directoryRead" must be a boolean');
  }
  const ttlMs = skills?.ttlMs ?? 60_000;
  if (!Number.isInteger(ttlMs) || ttlMs < 0)
    throw new Error('McpModule: option "skills.ttlMs" must be a non-negative integer');
  return Object.freeze({
    declared: skills !== undefined,
    roots: Object.freeze(roots),
    directoryRead: skills?.directoryRead ?? true,
    ttlMs,
    cacheScope,
  });
}

/** The `events.webhooks` options with their defaults; the store and queue stay as given (undefined: in memory). */
export interface McpResolvedWebhookOptions {
  readonly store?: McpWebhookOptions['store'];
  readonly queue?: McpWebhookOptions['queue'];
  readonly minTtlMs: number;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly allowNoExpiry: boolean;
  readonly maxSubscriptionsPerPrincipal: number;
  readonly maxPendingPerSubscription: number;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly retryWindowMs: number;
  readonly retryBaseMs: number;
  readonly verificationTtlMs: number;
  readonly maxVerificationsPerHostPerMinute: number;
  readonly preverifiedUrls: readonly string[];
  readonly secretGraceMs: number;
  readonly allowInsecureLoopback: boolean;
}

/** The `events` options with their defaults; the store stays as given (undefined: in memory). */
export interface McpResolvedEventsOptions {
  readonly profile: 'sep-3415' | 'openai';
  readonly topLevelCapability: boolean;
  readonly webhookId: 'eventId' | 'perMessage';
  readonly store?: McpEventsOptions['store'];
  readonly pollIntervalMs: number;
  readonly maxPollEvents: number;
  readonly heartbeatMs: number;
  readonly maxStreams: number;
  readonly maxStreamsPerPrincipal: number;
  readonly maxStreamsPerAddress: number;
  readonly cursorTtlMs: number;
  readonly maxArgumentsBytes: number;
  readonly webhooks: McpResolvedWebhookOptions;
}

/** The longest heartbeat interval: SEP-3415 asks for heartbeats at most 30 s apart ("Lifecycle"). */
const MAX_HEARTBEAT_MS = 30_000;

function resolveEvents(events: McpEventsOptions | undefined): McpResolvedEventsOptions {
  if (events !== undefined && (typeof events !== 'object' || events === null))
    throw new Error('McpModule: option "events" must be an object');
  const given = events ?? {};
  const profile = given.profile ?? 'sep-3415';
  if (profile !== 'sep-3415' && profile !== 'openai')
    throw new Error(`McpModule: option "events.profile" must be 'sep-3415' or 'openai'`);
  const webhookId = given.webhookId ?? 'eventId';
  if (webhookId !== 'eventId' && webhookId !== 'perMessage')
    throw new Error(`McpModule: option "events.webhookId" must be 'eventId' or 'perMessage'`);
  if (given.topLevelCapability !== undefined && typeof given.topLevelCapability !== 'boolean') {
    throw new Error('McpModule: option "events.topLevelCapability" must be a boolean');
  }
  const heartbeatMs = positive(given.heartbeatMs, 20_000, 'events.heartbeatMs');
  if (heartbeatMs > MAX_HEARTBEAT_MS)
    throw new Error(`McpModule: option "events.heartbeatMs" must be at most ${MAX_HEARTBEAT_MS}`);
  return Object.freeze({
    profile,
    topLevelCapability: given.topLevelCapability ?? true,
    webhookId,
    store: given.store,
    pollIntervalMs: Math.ceil(positive(given.pollIntervalMs, 2_000, 'events.pollIntervalMs')),
    maxPollEvents: Math.floor(positive(given.maxPollEvents, 100, 'events.maxPollEvents')),
    heartbeatMs,
    maxStreams: positive(given.maxStreams, 10_000, 'events.maxStreams'),
    maxStreamsPerPrincipal: positive(given.maxStreamsPerPrincipal, 32, 'events.maxStreamsPerPrincipal'),
    maxStreamsPerAddress: positive(given.maxStreamsPerAddress, 32, 'events.maxStreamsPerAddress'),
    cursorTtlMs: positive(given.cursorTtlMs, 7 * 24 * 60 * 60_000, 'events.cursorTtlMs'),
    maxArgumentsBytes: positive(given.maxArgumentsBytes, 8 * 1024, 'events.maxArgumentsBytes'),
    webhooks: resolveWebhooks(given.webhooks ?? {}),
  });
}

function resolveWebhooks(webhooks: McpWebhookOptions): McpResolvedWebhookOptions {
  const name = (field: string) => `events.webhooks.${field}`;
  const minTtlMs = positive(webhooks.minTtlMs, 60_000, name('minTtlMs'));
  const maxTtlMs = positive(webhooks.maxTtlMs, 24 * 60 * 60_000, name('maxTtlMs'));
  const defaultTtlMs = positive(webhooks.defaultTtlMs, Math.min(60 * 60_000, maxTtlMs), name('defaultTtlMs'));
  if (minTtlMs > defaultTtlMs || defaultTtlMs > maxTtlMs) {
    throw new Error('McpModule: options "events.webhooks.minTtlMs" ≤ "defaultTtlMs" ≤ "maxTtlMs" must hold');
  }
  for (const flag of ['allowNoExpiry', 'allowInsecureLoopback'] as const) {
    if (webhooks[flag] !== undefined && typeof webhooks[flag] !== 'boolean')
      throw new Error(`McpModule: option "${name(flag)}" must be a boolean`);
  }
  const preverified = webhooks.preverifiedUrls ?? [];
  if (
    !Array.isArray(preverified) ||
    !preverified.every((prefix) => typeof prefix === 'string' && /^https:\/\/[^/]+\//.test(prefix))
  ) {
    throw new Error(
      `McpModule: option "${name('preverifiedUrls')}" must be https:// URL prefixes that end their host with a "/"`,
    );
  }
  const allowNoExpiry = webhooks.allowNoExpiry ?? false;
  if (allowNoExpiry && webhooks.store?.durable !== true) {
    throw new Error(
      `McpModule: option "${name('allowNoExpiry')}" needs a durable subscription store (events.webhooks.store with durable: true): ` +
        'a subscription without expiry must survive a restart',
    );
  }
  return Object.freeze({
    store: webhooks.store,
    queue: webhooks.queue,
    minTtlMs,
    defaultTtlMs,
    maxTtlMs,
    allowNoExpiry,
    maxSubscriptionsPerPrincipal: positive(
      webhooks.maxSubscriptionsPerPrincipal,
      100,
      name('maxSubscriptionsPerPrincipal'),
    ),
    maxPendingPerSubscription: positive(webhooks.maxPendingPerSubscription, 1_000, name('maxPendingPerSubscription')),
    timeoutMs: positive(webhooks.timeoutMs, 10_000, name('timeoutMs')),
    maxAttempts: Math.floor(positive(webhooks.maxAttempts, 5, name('maxAttempts'))),
    retryWindowMs: positive(webhooks.retryWindowMs, 15 * 60_000, name('retryWindowMs')),
    retryBaseMs: positive(webhooks.retryBaseMs, 1_000, name('retryBaseMs')),
    verificationTtlMs: positive(webhooks.verificationTtlMs, 60 * 60_000, name('verificationTtlMs')),
    maxVerificationsPerHostPerMinute: positive(
      webhooks.maxVerificationsPerHostPerMinute,
      60,
      name('maxVerificationsPerHostPerMinute'),
    ),
    preverifiedUrls: Object.freeze([...preverified]),
    secretGraceMs: positive(webhooks.secretGraceMs, 15 * 60_000, name('secretGraceMs')),
    allowInsecureLoopback: webhooks.allowInsecureLoopback ?? false,
  });
}

function resolveAuth(options: McpModuleOptions): Readonly<McpAuthOptions> | undefined {
  const auth = options.auth;
  if (auth === undefined) return undefined;
  if (typeof auth !== 'object' || auth === null)
    throw new Error('McpModule: option "auth" must be an object (McpAuthOptions)');
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
    ['events.store', options.events?.store],
    ['events.webhooks.store', options.events?.webhooks?.store],
    ['events.webhooks.queue', options.events?.webhooks?.queue],
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
  return (
    typeof component === 'object' &&
    component !== null &&
    (component as { sharedAcrossReplicas?: unknown }).sharedAcrossReplicas === true
  );
}

function componentName(component: unknown): string {
  const name = (component as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'a shared component';
}

/**
 * `playground`: on by default outside production (docs/playground.md, "Off in production"); an explicit `true` or
 * object turns it on anywhere, `false` off.
 */
function resolvePlayground(playground: McpModuleOptions['playground']): Readonly<McpPlaygroundOptions> | undefined {
  if (playground === false) return undefined;
  if (playground === undefined) return process.env.NODE_ENV === 'production' ? undefined : Object.freeze({});
  if (playground === true) return Object.freeze({});
  if (typeof playground !== 'object' || playground === null) {
    throw new Error('McpModule: option "playground" must be a boolean or { clientId?, scopes? }');
  }
  if (playground.clientId !== undefined && (typeof playground.clientId !== 'string' || playground.clientId === '')) {
    throw new Error('McpModule: option "playground.clientId" must be a non-empty string');
  }
  if (
    playground.scopes !== undefined &&
    (!Array.isArray(playground.scopes) || !playground.scopes.every((scope) => typeof scope === 'string'))
  ) {
    throw new Error('McpModule: option "playground.scopes" must be an array of strings');
  }
  return Object.freeze({
    ...(playground.clientId !== undefined && { clientId: playground.clientId }),
    ...(playground.scopes !== undefined && { scopes: Object.freeze([...playground.scopes]) as string[] }),
  });
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

function singleUseStore(
  singleUse: boolean | McpRequestStateStore | undefined,
): true | McpRequestStateStore | undefined {
  if (singleUse === undefined || singleUse === false) return undefined;
  if (singleUse === true) return true;
  if (typeof singleUse?.consume !== 'function') {
    throw new Error(
      'McpModule: option "requestState.singleUse" must be true, false or a store with a consume(stateId, expiresAt) method',
    );
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

/** `sessionRoute`: a token a balancer can match at the start of a session id, so only characters safe in any matcher. */
function sessionRoute(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,63}$/.test(value)) {
    throw new Error('McpModule: option "sessionRoute" must be 1 to 63 letters, digits, "-" or "_" (e.g. the pod name)');
  }
  return value;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
