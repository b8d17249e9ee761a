import type { Type } from '@nestjs/common';
import type { McpRegistryState } from '../protocol/registry-state.interface.js';
import type { McpCacheHints, McpCacheScope, McpImplementation, McpLogLevel } from '../protocol/mcp-wire.interface.js';
import type { McpEventBus } from '../protocol/mcp-event-bus.interface.js';
import type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';
import type { McpDeliveryAuthorizer } from '../protocol/delivery-authorizer.interface.js';
import type { McpTaskStore } from '../protocol/task-store.interface.js';
import type { McpTaskRunner } from '../protocol/task-runner.interface.js';
import type { McpAccessToken, McpTokenVerifier } from '../protocol/access-token.interface.js';
import type { McpVisibilityHook } from '../protocol/mcp-caller.interface.js';
import type { McpEventStore } from '../protocol/event-store.interface.js';
import type { McpWebhookSubscriptionStore } from '../protocol/webhook-subscription-store.interface.js';
import type { McpWebhookDeliveryQueue } from '../protocol/webhook-delivery-queue.interface.js';
import type { McpAroundHandler } from '../protocol/mcp-handler-call.interface.js';

/** Cache hints per kind of cacheable result; each falls back to `default`. */
export interface McpCacheHintOptions {
  default?: McpCacheHints;
  discover?: McpCacheHints;
  toolsList?: McpCacheHints;
  promptsList?: McpCacheHints;
  resourcesList?: McpCacheHints;
  resourceTemplatesList?: McpCacheHints;
  resourcesRead?: McpCacheHints;
}

/**
 * How `requestState` of Multi Round-Trip Requests is sealed. A state opens only on a server with the same keys, the
 * same `name` and the same endpoint path (global prefix included): replicas share all three.
 */
export interface McpRequestStateOptions {
  /**
   * AES-256 keys, base64 (32 bytes each). The first seals, all are tried to open (rotation).
   * Without keys a random per-process key is used and a warning is logged: fine for one process only.
   */
  keys?: string[];
  /** How long a sealed state stays valid, in milliseconds. Default 5 minutes. */
  ttlMs?: number;
  /**
   * Accept each state once: a retry that sends a state again gets `-32602` "already used". `true` keeps the used
   * ids in this process (`InMemoryRequestStateStore`, at most 100,000 at once); pass a store shared by every
   * replica (e.g. Redis) when there are several. Default false: a state may be sent again until it expires.
   */
  singleUse?: boolean | McpRequestStateStore;
}

/**
 * Bounds of the per-response queue used when a client reads a stream slower than the server writes it; over stdio,
 * of the queue of the process's stdout (responses and server→client requests there are never dropped).
 */
export interface McpStreamingOptions {
  /** Frames kept waiting for a slow client before progress is coalesced and other notifications dropped. Default 128. */
  maxQueuedFrames?: number;
  /** Bytes kept waiting for a slow client, likewise. Default 64 KiB. */
  maxQueuedBytes?: number;
}

/**
 * The message channel (`notifications/message`, `ctx.log`; deprecated in the 2026-07-28 spec, still served), when it
 * is on. `logging: false` turns it off instead.
 */
export interface McpLoggingOptions {
  /** The level of a `ctx.log(data)` call that names none. Default `'info'`. */
  defaultLevel?: McpLogLevel;
}

/**
 * Tasks (`@McpTool({ task })`, the `io.modelcontextprotocol/tasks` extension): where they are kept and run, and their
 * bounds. Every field has a default; the extension is advertised once a tool has a `task` option.
 */
export interface McpTasksOptions {
  /** Where tasks are kept. Default: in memory (`InMemoryTaskStore`), bounded by the limits below. */
  store?: McpTaskStore;
  /** Where task rounds run. Default: in this process (`InMemoryTaskRunner`). */
  runner?: McpTaskRunner;
  /** A task's lifetime from its creation (`ttlMs`), in milliseconds. Default 1 hour. */
  defaultTtlMs?: number;
  /** The longest lifetime a task may get (a 2025-11-25 client's requested `ttl` is capped to it). Default 24 hours. */
  maxTtlMs?: number;
  /** The poll interval suggested to clients (`pollIntervalMs`). Default 1000 ms. */
  pollIntervalMs?: number;
  /** Most tasks one owner (principal, or all anonymous callers together) keeps at once. Default 100. */
  maxTasksPerOwner?: number;
  /** Most tasks kept in total by the in-memory store. Default 10,000. */
  maxTasks?: number;
  /** Largest final result kept, in bytes of JSON; a larger one fails the task with `-32603`. Default 1 MiB. */
  maxResultBytes?: number;
  /**
   * Most bytes of JSON a task's record holds while it runs (its arguments, answers, input requests, handler state and
   * the creating token's claims), whatever the store. A `tools/call` or `tasks/update` that would exceed it is refused
   * with `-32602` and HTTP 413; a round that would is failed. An ended task keeps only its result or error. Default
   * 256 KiB.
   */
  maxRecordBytes?: number;
}

/**
 * A directory of skills (`skills.roots`): every folder below it that holds a `SKILL.md` is a skill, served as
 * `skill://<prefix>/<folder path>/…`; a skill folder inside another one is a nested skill.
 */
export interface McpSkillRoot {
  /** The directory (relative paths resolve against the working directory). */
  directory: string;
  /** Skill-path segments put before the folder paths (`acme/billing`). Default: none. */
  prefix?: string;
  /** OAuth scopes a caller needs to see and read these skills (as `@McpScopes`). Default: none. */
  scopes?: string[];
  /** Listed in `skills/list` and `resources/list`; false: reachable only by URI (`skills/get`, reads). Default true. */
  listed?: boolean;
}

/**
 * Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension; docs/skills.md): where they come from besides
 * `@McpSkill` providers, and how their lists may be cached. Setting this option advertises the extension even while no
 * skill is declared (`skills/list` is then empty).
 */
export interface McpSkillsOptions {
  /** Directories of skills, read once at bootstrap (edits on disk show after a restart). Default: none. */
  roots?: Array<string | McpSkillRoot>;
  /** Serve `resources/directory/read` on skill directories (advertised as `directoryRead: true`). Default true. */
  directoryRead?: boolean;
  /** `ttlMs` of `skills/list`, `skills/get` and directory reads on the 2026-07-28 wire. Default 60,000. */
  ttlMs?: number;
  /**
   * `cacheScope` of those results. Default `'public'`; they are `'private'` whatever this says when what callers see
   * differs (`auth`, scopes, the `visibility` hook).
   */
  cacheScope?: McpCacheScope;
}

/**
 * Webhook delivery of the events extension (`events/subscribe`; docs/events.md, "Webhooks"): where subscriptions and
 * deliveries live, lifetimes, retries and the callback rules. Every field has a default.
 */
export interface McpWebhookOptions {
  /** Where subscriptions live. Default: in this process (`InMemoryWebhookSubscriptionStore`), soft state. */
  store?: McpWebhookSubscriptionStore;
  /** Where deliveries wait for their attempt. Default: in this process (`InMemoryWebhookDeliveryQueue`). */
  queue?: McpWebhookDeliveryQueue;
  /** Shortest lifetime granted (a shorter `ttlMs` is raised to it), in milliseconds. Default 60,000. */
  minTtlMs?: number;
  /** Lifetime granted when the client suggests none. Default 1 hour. */
  defaultTtlMs?: number;
  /** Longest lifetime granted. Default 24 hours. */
  maxTtlMs?: number;
  /**
   * Grant `ttlMs: null` (no expiry) when a client asks for it. Needs a `durable` store (refused at startup otherwise).
   * Default false: such a request gets `defaultTtlMs`.
   */
  allowNoExpiry?: boolean;
  /** Most live subscriptions one principal holds; more are refused with `ResourceExhausted`. Default 100. */
  maxSubscriptionsPerPrincipal?: number;
  /** Deliveries of one subscription in flight at once; beyond it events are skipped and a `gap` is sent. Default 1,000. */
  maxPendingPerSubscription?: number;
  /** Time one POST may take (connect, TLS, answer), in milliseconds. Default 10,000. */
  timeoutMs?: number;
  /** Attempts per delivery, the first included. Default 5. */
  maxAttempts?: number;
  /** Longest time from the first attempt to the last, in milliseconds. Default 15 minutes. */
  retryWindowMs?: number;
  /** Delay before the first retry; each later one doubles it, with jitter. Default 1,000 ms. */
  retryBaseMs?: number;
  /** How long an endpoint's consent (a passed verification) is remembered per principal and URL. Default 1 hour. */
  verificationTtlMs?: number;
  /** Verification challenges sent to one host per minute; more are refused with `ResourceExhausted`. Default 60. */
  maxVerificationsPerHostPerMinute?: number;
  /**
   * Callback URL prefixes whose consent was established out of band (`https://hooks.example.com/mcp/`): a URL that
   * starts with one is not sent a challenge. Default: none.
   */
  preverifiedUrls?: string[];
  /** How long a replaced secret still signs too (dual signatures) after a refresh rotated it. Default 15 minutes. */
  secretGraceMs?: number;
  /**
   * Development only: accept `http://127.0.0.1:<port>/…` callbacks (and the address 127.0.0.1 itself), for a
   * receiver on this machine. Never inferred from `NODE_ENV`. No other plain-HTTP or private address is ever accepted.
   * Default false.
   */
  allowInsecureLoopback?: boolean;
}

/**
 * The events extension (SEP-3415, `io.modelcontextprotocol/events`; docs/events.md): the wire
 * profile, the replay log, poll and stream settings, and webhooks. Every field has a default; the extension is
 * advertised once an event type is declared (`@McpEvent`).
 */
export interface McpEventsOptions {
  /**
   * The wire profile. `'sep-3415'` (default): SEP-3415's error codes (`-32023`…`-32027`), `NotFound` for an
   * unsubscribe that matches nothing. `'openai'`: the codes ChatGPT and the design sketch use (`-32011`…`-32015`) and
   * an idempotent unsubscribe.
   */
  profile?: 'sep-3415' | 'openai';
  /** Also advertise the top-level `capabilities.events: {}` that ChatGPT and the AI SDK look for. Default true. */
  topLevelCapability?: boolean;
  /**
   * The `webhook-id` of an event delivery: `'eventId'` (default; what every deployed receiver checks) or
   * `'perMessage'` (`msg_evt_<hash of subscription and event>`, still stable across retries).
   */
  webhookId?: 'eventId' | 'perMessage';
  /** The replay log. Default: in this process (`InMemoryEventStore`), bounded by each type's `replay`. */
  store?: McpEventStore;
  /** `nextPollMs` suggested to polling clients. Default 2,000. */
  pollIntervalMs?: number;
  /** Most events one `events/poll` returns (a larger `maxEvents` is lowered to it). Default 100. */
  maxPollEvents?: number;
  /** Interval of `notifications/events/heartbeat` on push streams, at most 30,000 ms. Default 20,000. */
  heartbeatMs?: number;
  /** Most `events/stream` streams open at once; more are refused with `ResourceExhausted`. Default 10,000. */
  maxStreams?: number;
  /** Most `events/stream` streams one principal holds open. Default 32. */
  maxStreamsPerPrincipal?: number;
  /** Most `events/stream` streams callers without a principal hold open from one address. Default 32. */
  maxStreamsPerAddress?: number;
  /** How long a cursor stays valid after it was issued; an older one is refused with `-32602`. Default 7 days. */
  cursorTtlMs?: number;
  /** Largest `arguments` of a subscription, in bytes of canonical JSON. Default 8 KiB. */
  maxArgumentsBytes?: number;
  /** Webhook delivery (`McpWebhookOptions`). */
  webhooks?: McpWebhookOptions;
}

/** Options of the built-in JWT verifier (`auth.jwt`). */
export interface McpJwtOptions {
  /**
   * Where the signing keys are. Default: the `jwks_uri` of each authorization server's metadata
   * (`/.well-known/oauth-authorization-server`, then `/.well-known/openid-configuration`), fetched once and cached;
   * keys are refetched when a token names an unknown key id (rotation), at most once per 30 s.
   */
  jwksUri?: string;
  /** Signature algorithms accepted. Default `['RS256', 'PS256', 'ES256', 'EdDSA']`; `none` and HMAC never are. */
  algorithms?: string[];
  /** Clock skew tolerated for `exp` and `nbf`, in seconds. Default 30. */
  clockToleranceSec?: number;
  /**
   * The `typ` header a token must have, e.g. `'at+jwt'` (RFC 9068 §2.1: JWT access tokens), compared
   * case-insensitively and with or without the `application/` prefix (`application/at+jwt` matches). Keeps out ID
   * tokens and other JWTs the issuer signs with the same keys. Default: not checked, since many providers send
   * `typ: "JWT"` or none on their access tokens.
   */
  requiredType?: string;
}

/** The built-in introspection verifier (RFC 7662, for opaque tokens): where to ask, and its caches and bounds. */
export interface McpIntrospectionOptions {
  /** The authorization server's introspection endpoint. */
  endpoint: string;
  /** This resource server's credentials at the authorization server (HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** How long an accepted answer is cached, in milliseconds (never beyond the token's `exp`). Default 60,000; 0 disables. */
  cacheTtlMs?: number;
  /**
   * How long a refused answer (inactive, another audience, expired…) is cached, so that a client retrying with a junk
   * or revoked token costs one introspection, not one per request; in milliseconds. Default 10,000; 0 disables.
   */
  inactiveCacheTtlMs?: number;
  /**
   * Most introspection calls in flight at once (concurrent requests with one token share one). More are answered
   * HTTP 503 with `Retry-After: 1`. Default 64.
   */
  maxInFlight?: number;
  /**
   * Whether an active answer must name this resource in `aud` (RFC 8707). Default true: an answer without `aud` is
   * refused, since a token issued for no resource in particular was not issued for this one. Set false only for an
   * authorization server that never sends `aud`; an `aud` that is present must still name this resource.
   */
  requireAudience?: boolean;
}

/**
 * Authorization (MCP 2026-07-28 "Authorization", OAuth 2.1 resource server): Protected Resource Metadata, bearer tokens
 * checked on every HTTP request before anything else, scopes per handler (`@McpScopes`), lists filtered per caller.
 * Applies to HTTP on both wires; stdio is not authorized (its caller is the process that started it).
 */
export interface McpAuthOptions {
  /**
   * The canonical URI of this MCP server (RFC 8707), e.g. `https://mcp.example.com/mcp`: tokens must be issued for it
   * (`aud`), and Protected Resource Metadata names it as `resource`. Upper-case scheme and host forms are accepted.
   */
  resource: string;
  /** Issuer URLs of the authorization servers clients may use (PRM `authorization_servers`, at least one). */
  authorizationServers: string[];
  /** Scopes for basic use, advertised in PRM `scopes_supported` (`offline_access` is never advertised). */
  scopesSupported?: string[];
  /** Verifies tokens. Default: JWTs with jose against the authorization servers' keys (`jwt`), or `introspection`. */
  verifier?: McpTokenVerifier;
  /** Options of the default JWT verifier. */
  jwt?: McpJwtOptions;
  /** Verify opaque tokens by RFC 7662 introspection instead of as JWTs. */
  introspection?: McpIntrospectionOptions;
  /**
   * Scopes that a broader scope implies, e.g. `{ 'deploy:admin': ['deploy:write'], 'deploy:write': ['deploy:read'] }`
   * (transitively): a token with `deploy:admin` satisfies `@McpScopes('deploy:read')`.
   */
  scopeHierarchy?: Record<string, readonly string[]>;
  /**
   * The principal of a verified token: requests, tasks, sessions and listen audiences are bound to it. Default: its
   * subject (`sub`) while one authorization server is trusted; with several, `<issuer>#<subject>` (their subjects may
   * collide), and a token that names no issuer is refused. Return undefined for that default. Set it when one issuer
   * serves several tenants whose subjects may collide: join the tenant claim and the subject.
   */
  principal?: (token: McpAccessToken) => string | undefined;
  /** Human-readable name of the resource, in PRM `resource_name`. */
  resourceName?: string;
  /** A page about the resource for developers, in PRM `resource_documentation`. */
  resourceDocumentation?: string;
}

/**
 * The playground (`playground`): a page in the browser at the endpoint, an MCP client of this server for people trying
 * it out (docs/playground.md). Both fields matter only with `auth`, for signing in from the page.
 */
export interface McpPlaygroundOptions {
  /**
   * The OAuth client id the page signs in with (authorization code + PKCE, a public client whose redirect URI is the
   * endpoint's own URL, e.g. `http://127.0.0.1:3000/mcp`). Default: none; the page then registers itself when the
   * authorization server offers dynamic client registration, or asks for a client id.
   */
  clientId?: string;
  /** The scopes the page asks for when signing in. Default: the metadata's `scopes_supported`. */
  scopes?: string[];
}

/** Options of `McpModule.forRoot` / `forRootAsync`. The `McpImplementation` fields are sent as `serverInfo`. */
/**
 * OpenTelemetry traces and metrics (docs/observability.md). Everything goes through `@opentelemetry/api`, an optional
 * peer dependency: without it, or without an SDK registered, nothing is recorded and nothing is built per call.
 */
export interface McpTelemetryOptions {
  /**
   * The tracer provider to use instead of the global one (`trace.setGlobalTracerProvider`, which the Node SDK calls):
   * for tests, or an application that keeps several. Typed structurally so that the option needs no import.
   */
  tracerProvider?: { getTracer(name: string, version?: string): unknown };
  /** The meter provider to use instead of the global one (`metrics.setGlobalMeterProvider`). */
  meterProvider?: { getMeter(name: string, version?: string): unknown };
  /**
   * Record a tool call's arguments as `gen_ai.tool.call.arguments` (a JSON string). Off by default: arguments are
   * user data and often sensitive (semantic conventions: opt-in).
   */
  recordToolArguments?: boolean;
  /** Record a successful tool call's result as `gen_ai.tool.call.result` (a JSON string). Off by default. */
  recordToolResults?: boolean;
  /** Record each `prompts/get` argument as `gen_ai.prompt.variable.<name>`. Off by default. */
  recordPromptVariables?: boolean;
  /** Add `mcp.resource.uri` to the metrics (high cardinality: one series per URI). Off by default; spans always carry it. */
  resourceUriInMetrics?: boolean;
  /**
   * More JSON-RPC error codes your application answers for the caller's mistakes (application-defined codes): a span
   * with one of them keeps status UNSET and no `error.type`. The built-in list is in docs/observability.md.
   */
  clientErrorCodes?: number[];
}

export interface McpModuleOptions extends McpImplementation {
  /** Server name, sent as `serverInfo.name`. */
  name: string;
  /** Server version, sent as `serverInfo.version`. */
  version: string;
  /** Guidance for the model, returned by `server/discover`. */
  instructions?: string;
  /**
   * Host header values accepted (DNS-rebinding protection), e.g. `['mcp.example.com']`, compared case-insensitively;
   * an entry without a port matches any port, an entry with one only that port. When set, only these are accepted
   * (not even `localhost` or IP addresses unless listed). Set it to serve the endpoint under a DNS name.
   * Default (fails closed): on a loopback connection only `localhost`, `127.0.0.1` and `[::1]`; on any other address
   * (0.0.0.0 in a container) `localhost` and IP addresses. Any other Host gets 403 / `-32600`. The policy is logged
   * once at startup (`McpHttpTransport`).
   */
  allowedHosts?: string[];
  /**
   * Origin header values accepted when a browser sends one: full origins such as `['https://app.example.com']`
   * (scheme, host, port; no trailing slash), compared case-insensitively. When set, only these are accepted.
   * Default: loopback origins (`http(s)://localhost`, `127.x.x.x`, `[::1]`, any port), and an origin whose host is
   * the IP address and port of the Host header. A page under a DNS name, even the server's own, needs this option.
   * A request without `Origin` (not a browser) is always accepted; `Origin: null` never is.
   */
  allowedOrigins?: string[];
  /** Largest accepted request body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Cache hints (`ttlMs`, `cacheScope`) of cacheable results. Default `{ ttlMs: 0, cacheScope: 'private' }`. */
  cacheHints?: McpCacheHintOptions;
  /** Items per page of `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`. Default 100. */
  pageSize?: number;
  /** Sealing of `requestState`. */
  requestState?: McpRequestStateOptions;
  /** Backpressure bounds of streamed responses. */
  streaming?: McpStreamingOptions;
  /**
   * Who is calling, for binding `requestState` to its caller: e.g. `(req) => req.user?.sub` after an auth guard.
   * Receives the framework's HTTP request. Default: no principal (an HTTP server with handlers or 2025-11-25
   * sessions then logs one warning at startup: states and sessions are not bound to a caller).
   */
  principal?: (request: unknown) => string | undefined;
  /**
   * Runs around every run of a handler's pipeline (guards, interceptors, pipes and the method) of `tools/call`,
   * `prompts/get` and `resources/read`, on every transport (HTTP on both wires, stdio, the testing kit) and in every
   * round of a task: the one place to enter a request context (`nestjs-cls`, an `AsyncLocalStorage`) that the
   * services a handler calls read. Default: none (docs/nest-ecosystem.md, "Request context with nestjs-cls").
   */
  aroundHandler?: McpAroundHandler;
  /**
   * OpenTelemetry: one SERVER span per request, the MCP metrics and nest-mcp's own, trace ids on progress events and
   * log messages (docs/observability.md). On by default, and free until an OpenTelemetry SDK is registered; `false`
   * turns it off completely (not even `@opentelemetry/api` is loaded).
   */
  telemetry?: false | McpTelemetryOptions;
  /**
   * Carries change events (`McpPublisher`, runtime registration) to listen streams. Default: in-process only;
   * give a shared bus (e.g. Redis pub/sub) when several replicas serve the same clients.
   */
  eventBus?: McpEventBus;
  /**
   * Where runtime changes of the lists (`McpRegistry.register*`, `remove*`, `disable*`) are kept for every replica, so
   * that all of them list the same entries (`McpRedis.serverOptions` gives Redis's). With one, runtime handlers are
   * names every replica provides (`registry.provideHandler`), and options must be plain JSON. Default: none, runtime
   * changes are this process's own. See docs/scaling.md.
   */
  registryState?: McpRegistryState;
  /** Most `subscriptions/listen` streams open at once; more are refused with HTTP 503 and `Retry-After`. Default 10,000. */
  maxListenStreams?: number;
  /**
   * Most `subscriptions/listen` streams one principal (see `principal`) holds open at once, so that one client cannot
   * take every slot of `maxListenStreams`; more are refused with HTTP 429 and `Retry-After`. Default 100.
   */
  maxListenStreamsPerPrincipal?: number;
  /**
   * Most `subscriptions/listen` streams callers without a principal hold open from one remote address; more are
   * refused with HTTP 429 and `Retry-After`. Raise it when many anonymous clients share one address (a proxy that
   * does not forward the client's own). Default 100.
   */
  maxListenStreamsPerAddress?: number;
  /**
   * Decides whether a change event may reach a listener, after the event's `audience` admitted it (an event published
   * with an audience reaches only the principals it lists; one without reaches every subscriber). Runs for every
   * event × subscribed listener, so it is synchronous: only `true` delivers; `false`, a Promise or a throw refuses.
   * Applies to `subscriptions/listen` streams and to 2025-11-25 session streams. Default: none (audience only).
   */
  authorizeDelivery?: McpDeliveryAuthorizer;
  /** Interval of keep-alive comments on listen streams, in milliseconds. Default 15,000. */
  keepAliveMs?: number;
  /**
   * Longest a `tools/call`, `prompts/get` or `resources/read` (or any other request) may run, in milliseconds; then
   * its `ctx.signal` aborts and the client gets `-32603`. `0` disables it. Default 5 minutes. Listen streams are
   * exempt.
   */
  callTimeoutMs?: number;
  /**
   * Most requests in flight at once over HTTP, on both wires (listen streams are not counted: they have their own
   * caps); more are refused with HTTP 503, `Retry-After` and `-32603`. Default 1,000.
   */
  maxCallsInFlight?: number;
  /**
   * Most requests one principal (see `principal`) has in flight at once over HTTP, so that one client cannot take
   * every slot of `maxCallsInFlight`; more are refused with HTTP 429, `Retry-After` and `-32603`. Default 128.
   */
  maxCallsInFlightPerPrincipal?: number;
  /**
   * Most requests callers without a principal have in flight at once from one remote address; more are refused with
   * HTTP 429, `Retry-After` and `-32603`. Raise it when many anonymous clients share one address (a proxy that does
   * not forward the client's own). Default 128.
   */
  maxCallsInFlightPerAddress?: number;
  /** On shutdown, how long calls in flight may take to answer after their signal aborted. Default 10 seconds. */
  shutdownTimeoutMs?: number;
  /** Deepest nesting of arrays and objects accepted in a request body. Default 64. */
  maxJsonDepth?: number;
  /** 2025-11-25 sessions idle longer than this expire (later requests get 404), in milliseconds. Default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * A route token this replica puts at the start of every 2025-11-25 session id it mints (`<sessionRoute>.<random>`),
   * so that a load balancer can send each session's requests to the replica that holds it (see docs/scaling.md:
   * hashing the id cannot, since `initialize` carries none). Letters, digits, `-` and `_`, at most 63; give each
   * replica its own (e.g. its pod name). A request whose session is unknown here still gets 404. Default: none.
   */
  sessionRoute?: string;
  /** Most 2025-11-25 sessions at once; `initialize` beyond it is refused with HTTP 503 and `Retry-After`. Default 10,000. */
  maxSessions?: number;
  /**
   * Most 2025-11-25 sessions one principal (see `principal`) holds at once, so that one client cannot take every slot
   * of `maxSessions`; `initialize` beyond it is refused with HTTP 429 and `Retry-After`. Default 100.
   */
  maxSessionsPerPrincipal?: number;
  /**
   * Most 2025-11-25 sessions callers without a principal hold from one remote address; `initialize` beyond it is
   * refused with HTTP 429 and `Retry-After`. Raise it when many anonymous clients share one address (a proxy that
   * does not forward the client's own). Default 100.
   */
  maxSessionsPerAddress?: number;
  /**
   * Bytes all 2025-11-25 sessions may hold together (what each keeps of `initialize`, and its subscribed URIs, as
   * estimated by the server); beyond it `initialize` is refused with HTTP 503 and `resources/subscribe` with -32603.
   * Default 64 MiB.
   */
  maxSessionBytes?: number;
  /**
   * Largest `initialize` params of a 2025-11-25 client, in bytes of JSON; larger ones are refused with HTTP 413 and
   * -32602. A session keeps only a small bounded copy of them either way. Default 8 KiB.
   */
  maxInitializeBytes?: number;
  /**
   * Serve 2025-11-25 clients (`initialize`, sessions, the GET stream, DELETE) on the same endpoint and on stdio.
   * `false` answers every request as a 2026-07-28-only server does: `initialize` without the 2026 envelope gets its
   * error, GET and DELETE get 405. Default true.
   */
  legacyWire?: boolean;
  /** How long a 2025-11-25 server→client request (elicitation, sampling, roots) waits for its answer. Default 10 minutes. */
  clientRequestTimeoutMs?: number;
  /** Put `io.modelcontextprotocol/serverInfo` in every result's `_meta`. Default true. */
  serverInfoInResults?: boolean;
  /**
   * Where handlers' progress goes when a request carries no progress token. `'mcp'` (default): nowhere, as the spec
   * requires. `'stderr'`: also to stderr, one NDJSON `ProgressEvent` per report (for CLI runs and scripts that read
   * the server's stderr). Requests with a token get `notifications/progress` either way, and nothing on stderr.
   */
  progress?: 'mcp' | 'stderr';
  /**
   * What `ctx.progressFrom` does with the progress lines of a wrapped command when the request carries no progress
   * token: `'stderr'` (default) writes each line it accepts, unchanged, to the server's stderr, where the command would
   * have shown it; `'drop'` discards them (the behaviour before this option). With `progress: 'stderr'` the events are
   * written as the server's own ProgressEvents instead, once. Each call may override it (`progressFrom(…, { withoutToken })`).
   */
  progressFromWithoutToken?: 'stderr' | 'drop';
  /**
   * The message channel (`ctx.log` → `notifications/message`, deprecated in the 2026-07-28 spec). An object configures
   * it (`McpLoggingOptions`); `false` turns it off: the `logging` capability is not advertised (`server/discover`,
   * 2025-11-25 `initialize`), `logging/setLevel` answers `-32601`, and `ctx.log` sends nothing and returns false.
   * Default: on, `ctx.log(data)` at `'info'`.
   */
  logging?: false | McpLoggingOptions;
  /**
   * Tool arguments that fail `inputSchema`: an `isError` result the model can correct (`'result'`, default),
   * or a JSON-RPC `-32602` error (`'protocol'`).
   */
  invalidToolArguments?: 'result' | 'protocol';
  /** Tasks: store, runner, lifetimes and bounds (`McpTasksOptions`). */
  tasks?: McpTasksOptions;
  /** Skills served from directories, besides `@McpSkill` providers, and their cache hints (`McpSkillsOptions`). */
  skills?: McpSkillsOptions;
  /** The events extension (`@McpEvent`, `McpEvents`): profile, replay log, poll, streams, webhooks (`McpEventsOptions`). */
  events?: McpEventsOptions;
  /**
   * OAuth authorization (`McpAuthOptions`): every HTTP request needs a valid bearer token for `auth.resource`; the
   * token's subject becomes the principal (so `principal` must not be set too).
   */
  auth?: McpAuthOptions;
  /**
   * Hides handlers from some callers, on top of their scopes (`McpVisibilityHook`): lists (`tools/list`,
   * `prompts/list`, `resources/list`, `resources/templates/list`) and `completion/complete` leave out what it refuses,
   * and a direct call of a hidden handler answers exactly like an unknown one. Applies with or without `auth`, on
   * every transport. Lists filtered per caller (this hook set, or `auth` on) carry `cacheScope: "private"`, and so do
   * `resources/read` results while it is set (or when the resource has `@McpScopes`). `server/discover` is not
   * filtered: capabilities say what the server has. Default: none (with `auth`, lists are still filtered by
   * `@McpScopes`).
   */
  visibility?: McpVisibilityHook;
  /**
   * The playground: `GET` on the endpoint from a browser (`Accept: text/html`) answers a page that lists, calls and
   * follows everything this server offers, speaking the 2026-07-28 wire to the endpoint from the browser
   * (docs/playground.md). `true` or an object (`McpPlaygroundOptions`) turns it on, `false` off. Default: on unless
   * `NODE_ENV` is `production`. Other GET requests (a 2025-11-25 session's stream) are served as before.
   */
  playground?: boolean | McpPlaygroundOptions;
}

/** Static options of the module, fixed when it is imported (they shape routes). */
export interface McpModuleExtras {
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
  /**
   * Registers the module globally, so `McpRegistry` and `McpPublisher` can be injected in any module. Default true;
   * set false when one application serves several MCP endpoints.
   */
  isGlobal?: boolean;
  /**
   * Serve only the handlers (tools, prompts, resources, templates, app views, event types, route tools) of providers
   * and controllers declared in these modules — for several servers in one application, e.g. admin tools on
   * `/admin/mcp` and customer tools on `/mcp` (docs/servers.md). A module's imports are not included with it; list
   * each. Default: every decorated handler of the application.
   */
  include?: readonly Type[];
}
