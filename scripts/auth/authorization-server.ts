/// <reference path="./oidc-provider-module.d.ts" />
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { type Client, type Configuration, errors, Provider } from 'oidc-provider';

/**
 * A real OAuth 2.1 / OpenID Connect authorization server (oidc-provider) on 127.0.0.1, for local development: the demo
 * (`npm start -- --auth`, see `demo-authorization-server.ts`) and the authorization tests (through
 * `test/support/oidc-provider.ts`). Never for production: clients, keys and grants live in memory, and logins accept
 * any user name and password.
 *
 * - Access tokens for a resource (RFC 8707 `resource` parameter) are JWTs (`aud` = the resource, `scope`, `client_id`,
 *   `sub`), or opaque with `tokenFormat: 'opaque'` (for the introspection verifier; oidc-provider never introspects a
 *   JWT).
 * - Grants: client credentials for confidential clients, authorization code + PKCE (S256) for public clients with a
 *   loopback redirect URI. `authorize(url)` drives the code flow headlessly through oidc-provider's own interaction
 *   pages (login, then consent), with `fetch` and a cookie jar kept by hand.
 * - Token introspection (RFC 7662) and revocation (RFC 7009), with the `introspectionClient`'s credentials.
 * - Metadata at `<issuer>/.well-known/openid-configuration` (oidc-provider) and, unless `rfc8414Metadata: false`, at the
 *   RFC 8414 location `/.well-known/oauth-authorization-server<issuer path>`.
 * - `rotateSigningKey()` adds a key and signs with it from then on; the older keys stay in the JWKS.
 * - `mintToken` / `mintBadToken` sign tokens with jose directly, for negative tests.
 *
 * Runs in the caller's process: oidc-provider 9 warns that it wants Node 22 but works on Node 20 for everything used
 * here.
 */
export interface LocalAuthorizationServer {
  /** The issuer identifier (`iss`), e.g. `http://127.0.0.1:43121` or `http://127.0.0.1:43121/oidc`. */
  readonly issuer: string;
  /** Where the server listens, e.g. `http://127.0.0.1:43121`. */
  readonly origin: string;
  readonly port: number;
  /** Endpoints, from the issuer (what its metadata document says). */
  readonly endpoints: {
    readonly authorization: string;
    readonly token: string;
    readonly jwks: string;
    readonly introspection: string;
    readonly revocation: string;
    /** oidc-provider's own metadata document (`<issuer>/.well-known/openid-configuration`). */
    readonly openidConfiguration: string;
    /** The RFC 8414 location, served unless `rfc8414Metadata: false`. */
    readonly oauthAuthorizationServer: string;
  };
  /** The confidential clients (client credentials grant), the first one is the default. */
  readonly confidentialClients: readonly ConfidentialClient[];
  /** The public clients (authorization code + PKCE), the first one is the default. */
  readonly publicClients: readonly PublicClient[];
  /** The resource server's own credentials, for introspection (RFC 7662). It may not obtain tokens. */
  readonly introspectionClient: { readonly clientId: string; readonly clientSecret: string };
  /** The key id access tokens are signed with right now. */
  readonly signingKid: string;
  /** Every key id in the published JWKS, newest first. */
  readonly publishedKids: readonly string[];

  /** Client credentials grant (`client_secret_basic`). Throws with the server's error when refused. */
  clientCredentialsToken(request: ClientCredentialsRequest): Promise<TokenResponse>;
  /**
   * Follows an authorization request URL (built by the test or by an OAuth client) through login and consent, as
   * `accountId`, and resolves with the URL the server redirects back to (with `code` and `state`, or with `error`).
   */
  authorize(authorizationUrl: string | URL, options?: { accountId?: string }): Promise<URL>;
  /** The whole authorization code + PKCE flow for a public client: authorize, then redeem the code. */
  authorizationCodeToken(request: AuthorizationCodeRequest): Promise<TokenResponse>;
  /** RFC 7662 introspection with the introspection client's credentials. */
  introspect(token: string): Promise<Record<string, unknown>>;
  /** RFC 7009 revocation, authenticated as the client the token was issued to (default: the first confidential one). */
  revoke(token: string, clientId?: string): Promise<void>;
  /** Adds a new signing key, signs with it from now on and keeps the older keys published. Resolves with its kid. */
  rotateSigningKey(): Promise<string>;
  /** A well-formed access token signed by the current key, with the given claims on top of valid defaults. */
  mintToken(request: MintRequest): Promise<string>;
  /** A token that a correct verifier must refuse, for `kind` (see `BAD_TOKEN_KINDS`). */
  mintBadToken(kind: BadTokenKind, request: MintRequest): Promise<string>;
  /** Errors oidc-provider reported as `server_error` (for diagnosing a failing test). */
  readonly serverErrors: readonly Error[];
  /** Every request received, as `METHOD /path` (no query), oldest first: what a verifier fetched, and how often. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** A client that obtains tokens for itself (client credentials). */
export interface ConfidentialClient {
  clientId: string;
  clientSecret: string;
  /** Scopes it may request. Default: every scope of the server. */
  scopes?: string[];
}

/** A client acting for a user (authorization code + PKCE, no secret). */
export interface PublicClient {
  clientId: string;
  /** Loopback redirect URIs; the port is ignored when matching (RFC 8252 §7.3). Default `http://127.0.0.1/callback`. */
  redirectUris?: string[];
  /** Scopes it may request. Default: every scope of the server. */
  scopes?: string[];
}

/** Options of `startAuthorizationServer`. */
export interface LocalAuthorizationServerOptions {
  /**
   * Which resource indicators get tokens: one URI, or a predicate. Default: any http(s) URL on a loopback host.
   * Anything else is refused with `invalid_target`.
   */
  resource?: string | ((resource: string) => boolean);
  /** The loopback port to listen on. Default 0 (any free port). */
  port?: number;
  /** Every scope the resource servers accept. Default `['mcp:read', 'mcp:write', 'mcp:admin']`. */
  scopes?: string[];
  /** Default: one client `mcp-service` with a random secret. */
  confidentialClients?: ConfidentialClient[];
  /** Default: one client `mcp-app` with redirect URI `http://127.0.0.1/callback`. */
  publicClients?: PublicClient[];
  /** Access tokens as JWTs (default) or opaque strings (to be introspected). */
  tokenFormat?: 'jwt' | 'opaque';
  /** Lifetime of access tokens, in seconds. Default 300. */
  accessTokenTtlSec?: number;
  /** JWS algorithm of the signing keys. Default `RS256`. */
  signingAlg?: 'RS256' | 'PS256' | 'ES256' | 'EdDSA';
  /** A path for the issuer, e.g. `/oidc` (issuer `http://127.0.0.1:<port>/oidc`). Default: none. */
  issuerPath?: string;
  /** Also serve the metadata at the RFC 8414 location. Default true. */
  rfc8414Metadata?: boolean;
}

/** A successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
}

/** Options of `clientCredentialsToken`. */
export interface ClientCredentialsRequest {
  /**
   * The resource indicator (RFC 8707), e.g. the MCP endpoint's URL. Undefined asks for a token for no resource in
   * particular: oidc-provider then issues one without audience (opaque, whatever `tokenFormat` says).
   */
  resource: string | undefined;
  /** Space-separated scopes. Default: none. */
  scope?: string;
  /** Default: the first confidential client. */
  clientId?: string;
  /** Default: the client's configured secret (give another to test a refusal). */
  clientSecret?: string;
}

/** Options of `authorizationCodeToken`. */
export interface AuthorizationCodeRequest {
  resource: string;
  scope?: string;
  /** The user who logs in (any id works). Default `alice`. */
  accountId?: string;
  /** Default: the first public client. */
  clientId?: string;
}

/** What a minted token says (defaults: subject `alice`, client `mcp-service`, 5 minutes, no scope). */
export interface MintRequest {
  resource: string;
  scope?: string;
  subject?: string;
  clientId?: string;
  /** Claims added or overriding the defaults (`undefined` removes one). */
  claims?: JWTPayload;
  /** The `typ` header. Default `at+jwt` (RFC 9068); `null` sends none. */
  type?: string | null;
}

/** The tokens `mintBadToken` makes; each must be refused by a correct verifier. */
export const BAD_TOKEN_KINDS = [
  /** `exp` an hour ago. */
  'expired',
  /** `nbf` in an hour. */
  'not-yet-valid',
  /** `aud` another resource on the same host. */
  'wrong-audience',
  /** `iss` another server (signed by this one's key). */
  'wrong-issuer',
  /** `alg: none`, no signature. */
  'unsigned',
  /** A valid token whose payload was changed (broader scope, another subject) after signing. */
  'tampered',
  /** Valid claims signed by a key the server never published, under the server's current kid. */
  'foreign-key',
  /** HS256 with the server's public key (PEM) as the HMAC secret: the algorithm-confusion attack. */
  'hs256-public-key',
] as const;

/** One of `BAD_TOKEN_KINDS`. */
export type BadTokenKind = (typeof BAD_TOKEN_KINDS)[number];

const DEFAULT_SCOPES = ['mcp:read', 'mcp:write', 'mcp:admin'];
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether `resource` is an http(s) URL on a loopback host, without a fragment. */
export function isLoopbackResource(resource: string): boolean {
  const url = URL.parse(resource);
  return !!url && /^https?:$/.test(url.protocol) && LOOPBACK_HOSTS.has(url.hostname) && !url.hash;
}

interface SigningKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

async function newSigningKey(alg: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${randomUUID()}`;
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  return { kid, privateJwk, privateKey, publicKey };
}

/** Starts the authorization server on a loopback port (a free one unless `port` is given). Call `close()` when done. */
export async function startAuthorizationServer(
  options: LocalAuthorizationServerOptions = {},
): Promise<LocalAuthorizationServer> {
  const alg = options.signingAlg ?? 'RS256';
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  const tokenFormat = options.tokenFormat ?? 'jwt';
  const accessTokenTtlSec = options.accessTokenTtlSec ?? 300;
  const issuerPath = (options.issuerPath ?? '').replace(/\/$/, '');
  const acceptsResource =
    typeof options.resource === 'string'
      ? (resource: string) => resource === options.resource
      : (options.resource ?? isLoopbackResource);
  const confidentialClients = options.confidentialClients ?? [
    { clientId: 'mcp-service', clientSecret: randomBytes(16).toString('base64url') },
  ];
  const publicClients = options.publicClients ?? [{ clientId: 'mcp-app' }];
  const introspectionClient = { clientId: 'mcp-resource-server', clientSecret: randomBytes(16).toString('base64url') };
  const keys: SigningKey[] = [await newSigningKey(alg)];
  const cookieKeys = [randomBytes(32).toString('base64url')];
  const storage = new Map<string, StoredEntry>();
  const serverErrors: Error[] = [];
  const requests: string[] = [];

  const http = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const issuer = `${origin}${issuerPath}`;

  const configuration = (): Configuration => ({
    adapter: (model: string) => new MapAdapter(model, storage),
    jwks: { keys: keys.map((key) => key.privateJwk) },
    cookies: { keys: cookieKeys },
    clients: [
      ...confidentialClients.map((client) => ({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      ...publicClients.map((client) => ({
        client_id: client.clientId,
        application_type: 'native',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: client.redirectUris ?? ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      })),
      {
        client_id: introspectionClient.clientId,
        client_secret: introspectionClient.clientSecret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // Resource scopes are not OpenID scopes: oidc-provider learns them from getResourceServerInfo.
    scopes: ['openid'],
    findAccount: (_ctx: unknown, accountId: string) => ({ accountId, claims: () => ({ sub: accountId }) }),
    pkce: { required: () => true },
    ttl: {
      AccessToken: accessTokenTtlSec,
      ClientCredentials: accessTokenTtlSec,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
      IdToken: 3600,
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      // Only the resource server (or the token's own client) learns what a token is; only its client revokes it.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx: unknown, client: Client, token: { clientId: string }) =>
          client.clientId === introspectionClient.clientId || client.clientId === token.clientId,
      },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx: unknown, client: Client, token: { clientId: string }) =>
          client.clientId === token.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, client: Client) => {
          if (!acceptsResource(resource)) throw new errors.InvalidTarget();
          // A client's allowed scopes: oidc-provider's `scope` client metadata only restricts its static (OpenID)
          // scopes, so resource scopes are limited here; requested scopes outside this set are left out of the token.
          const allowed = [...confidentialClients, ...publicClients].find(
            (c) => c.clientId === client.clientId,
          )?.scopes;
          return {
            scope: (allowed ?? scopes).join(' '),
            audience: resource,
            accessTokenTTL: accessTokenTtlSec,
            accessTokenFormat: tokenFormat,
            ...(tokenFormat === 'jwt' ? { jwt: { sign: { alg, kid: keys[0].kid } } } : {}),
          };
        },
      },
    },
  });

  let provider = new Provider(issuer, configuration());
  let providerHandler = provider.callback();
  const watch = (p: Provider) => p.on('server_error', (_ctx: unknown, error: Error) => serverErrors.push(error));
  watch(provider);

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', origin);
    requests.push(`${request.method} ${url.pathname}`);
    let path = url.pathname;
    if (options.rfc8414Metadata !== false && path === `/.well-known/oauth-authorization-server${issuerPath}`) {
      // The same document at the RFC 8414 location (oidc-provider serves only the OpenID Connect one).
      path = `${issuerPath}/.well-known/openid-configuration`;
    }
    if (issuerPath && path !== issuerPath && !path.startsWith(`${issuerPath}/`)) {
      response.writeHead(404).end();
      return;
    }
    // Mounted under the issuer's path: oidc-provider derives its mount path from originalUrl (as under Express).
    (request as IncomingMessage & { originalUrl?: string }).originalUrl = `${path}${url.search}`;
    request.url = `${path.slice(issuerPath.length) || '/'}${url.search}`;
    providerHandler(request, response);
  }

  const endpoints = {
    authorization: `${issuer}/auth`,
    token: `${issuer}/token`,
    jwks: `${issuer}/jwks`,
    introspection: `${issuer}/token/introspection`,
    revocation: `${issuer}/token/revocation`,
    openidConfiguration: `${issuer}/.well-known/openid-configuration`,
    oauthAuthorizationServer: `${origin}/.well-known/oauth-authorization-server${issuerPath}`,
  };
  const basic = (clientId: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const postForm = async (endpoint: string, form: Record<string, string>, authorization?: string) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(authorization ? { authorization } : {}),
      },
      body: new URLSearchParams(form),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${endpoint} answered ${response.status}: ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const confidential = (clientId?: string) => {
    const client = clientId ? confidentialClients.find((c) => c.clientId === clientId) : confidentialClients[0];
    if (!client) throw new Error(`no confidential client "${clientId}"`);
    return client;
  };
  const publicClient = (clientId?: string) => {
    const client = clientId ? publicClients.find((c) => c.clientId === clientId) : publicClients[0];
    if (!client) throw new Error(`no public client "${clientId}"`);
    return client;
  };

  const authorize = async (authorizationUrl: string | URL, { accountId = 'alice' } = {}): Promise<URL> => {
    const start = new URL(authorizationUrl);
    const client = publicClients.find((c) => c.clientId === start.searchParams.get('client_id'));
    const redirectUri = start.searchParams.get('redirect_uri');
    const jar = new CookieJar();
    let next: { url: URL; form?: Record<string, string> } = { url: start };
    for (let step = 0; step < 20; step++) {
      const response = await fetch(next.url, {
        method: next.form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: jar.header(),
          ...(next.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: next.form ? new URLSearchParams(next.form) : undefined,
      });
      jar.store(response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        const target = new URL(location, next.url);
        // Back at the client: the flow is over (a code, or an error for the client).
        if (target.origin !== origin || (redirectUri && target.href.startsWith(redirectUri))) return target;
        next = { url: target };
        continue;
      }
      const page = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1];
      if (response.status !== 200 || !action || !prompt) {
        throw new Error(
          `authorization flow stopped at ${next.url.pathname} (${response.status}): ${page.slice(0, 500)}` +
            (client ? '' : " (the client is not one of this server's public clients)"),
        );
      }
      const submit = new URL(action.replace(/&amp;/g, '&'), next.url);
      next = {
        url: submit,
        form: prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt },
      };
    }
    throw new Error('authorization flow did not end within 20 steps');
  };

  const mintToken = async (request: MintRequest, key: SigningKey = keys[0]): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = {
      iss: issuer,
      sub: request.subject ?? 'alice',
      aud: request.resource,
      client_id: request.clientId ?? 'mcp-service',
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
      ...(request.scope !== undefined ? { scope: request.scope } : {}),
      ...request.claims,
    };
    for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
    const typ = request.type === undefined ? 'at+jwt' : request.type;
    return new SignJWT(payload)
      .setProtectedHeader({ alg, kid: key.kid, ...(typ !== null && { typ }) })
      .sign(key.privateKey);
  };

  const mintBadToken = async (kind: BadTokenKind, request: MintRequest): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    switch (kind) {
      case 'expired':
        return mintToken({ ...request, claims: { iat: now - 7200, exp: now - 3600, ...request.claims } });
      case 'not-yet-valid':
        return mintToken({ ...request, claims: { nbf: now + 3600, exp: now + 7200, ...request.claims } });
      case 'wrong-audience':
        return mintToken({ ...request, resource: new URL('/another-resource', request.resource).href });
      case 'wrong-issuer':
        return mintToken({
          ...request,
          claims: { iss: `http://127.0.0.1:1${issuerPath}/not-this-issuer`, ...request.claims },
        });
      case 'unsigned': {
        const [, payload] = (await mintToken(request)).split('.');
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' }));
        return `${header}.${payload}.`;
      }
      case 'tampered': {
        const [header, payload, signature] = (await mintToken(request)).split('.');
        const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as JWTPayload;
        const changed = { ...claims, sub: 'mallory', scope: [claims.scope, ...scopes].filter(Boolean).join(' ') };
        return `${header}.${base64url.encode(JSON.stringify(changed))}.${signature}`;
      }
      case 'foreign-key': {
        const foreign = await newSigningKey(alg);
        return mintToken(request, { ...foreign, kid: keys[0].kid });
      }
      case 'hs256-public-key': {
        const secret = new TextEncoder().encode(await exportSPKI(keys[0].publicKey));
        const [, payload] = (await mintToken(request)).split('.');
        const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as JWTPayload;
        return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: keys[0].kid, typ: 'at+jwt' }).sign(secret);
      }
    }
  };

  return {
    issuer,
    origin,
    port,
    endpoints,
    confidentialClients,
    publicClients,
    introspectionClient,
    get signingKid() {
      return keys[0].kid;
    },
    get publishedKids() {
      return keys.map((key) => key.kid);
    },
    serverErrors,
    requests,
    async clientCredentialsToken(request) {
      const client = confidential(request.clientId);
      return (await postForm(
        endpoints.token,
        {
          grant_type: 'client_credentials',
          ...(request.resource !== undefined ? { resource: request.resource } : {}),
          ...(request.scope !== undefined ? { scope: request.scope } : {}),
        },
        basic(client.clientId, request.clientSecret ?? client.clientSecret),
      )) as unknown as TokenResponse;
    },
    authorize,
    async authorizationCodeToken(request) {
      const client = publicClient(request.clientId);
      const redirectUri = client.redirectUris?.[0] ?? 'http://127.0.0.1/callback';
      const verifier = randomBytes(32).toString('base64url');
      const state = randomBytes(8).toString('base64url');
      const url = new URL(endpoints.authorization);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: redirectUri,
        resource: request.resource,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        state,
        ...(request.scope !== undefined ? { scope: request.scope } : {}),
      }).toString();
      const callback = await authorize(url, { accountId: request.accountId });
      const code = callback.searchParams.get('code');
      if (!code || callback.searchParams.get('state') !== state) {
        throw new Error(`authorization failed: ${callback.search}`);
      }
      return (await postForm(endpoints.token, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: client.clientId,
        resource: request.resource,
      })) as unknown as TokenResponse;
    },
    async introspect(token) {
      return postForm(
        endpoints.introspection,
        { token },
        basic(introspectionClient.clientId, introspectionClient.clientSecret),
      );
    },
    async revoke(token, clientId) {
      const client = confidentialClients.find((c) => c.clientId === clientId);
      if (client || !clientId) {
        const owner = client ?? confidential();
        await postForm(endpoints.revocation, { token }, basic(owner.clientId, owner.clientSecret));
      } else {
        await postForm(endpoints.revocation, { token, client_id: publicClient(clientId).clientId });
      }
    },
    async rotateSigningKey() {
      keys.unshift(await newSigningKey(alg));
      // oidc-provider reads its keys once, at construction: build a new one on the same port, issuer, cookie keys and
      // storage, so that grants, sessions and opaque tokens survive the rotation.
      provider = new Provider(issuer, configuration());
      providerHandler = provider.callback();
      watch(provider);
      return keys[0].kid;
    },
    mintToken: (request) => mintToken(request),
    mintBadToken,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Cookies by name, enough for one headless login at one server. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key, setting = ''] = attribute.trim().split('=');
        return (
          (key.toLowerCase() === 'max-age' && Number(setting) <= 0) ||
          (key.toLowerCase() === 'expires' && Date.parse(setting) <= Date.now())
        );
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

interface StoredEntry {
  payload: Record<string, unknown>;
  expiresAt: number;
}

/**
 * oidc-provider's storage contract over one Map per server (its built-in memory adapter is a process-wide
 * singleton): survives `rotateSigningKey`, which builds a new Provider over the same Map.
 */
class MapAdapter {
  constructor(
    private readonly model: string,
    private readonly storage: Map<string, StoredEntry>,
  ) {}

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  private get(key: string): Record<string, unknown> | undefined {
    const entry = this.storage.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.storage.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
    this.storage.set(this.key(id), { payload, expiresAt });
    if (typeof payload.uid === 'string') this.storage.set(`uid:${payload.uid}`, { payload: { id }, expiresAt });
    if (typeof payload.userCode === 'string') {
      this.storage.set(`userCode:${payload.userCode}`, { payload: { id }, expiresAt });
    }
  }

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    return this.get(this.key(id));
  }

  async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    const pointer = this.get(`uid:${uid}`);
    return pointer ? this.find(pointer.id as string) : undefined;
  }

  async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
    const pointer = this.get(`userCode:${userCode}`);
    return pointer ? this.find(pointer.id as string) : undefined;
  }

  async consume(id: string): Promise<void> {
    const payload = this.get(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.storage.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [key, entry] of this.storage) {
      if (entry.payload.grantId === grantId) this.storage.delete(key);
    }
  }
}
