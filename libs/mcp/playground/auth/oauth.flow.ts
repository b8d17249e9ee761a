/**
 * Signing in from the page, as an OAuth 2.1 public client (RFC 9728 → RFC 8414 → authorization code + PKCE, RFC 8707
 * `resource`): the endpoint's Protected Resource Metadata names the authorization server; the page sends the user
 * there and, back at the endpoint's URL with a `code`, redeems it for a token. The verifier and state wait in
 * sessionStorage across the redirect; the token stays in this tab (docs/playground.md, "Signing in").
 */

const PENDING_KEY = 'nest-mcp-playground:sign-in';
const CLIENT_KEY = 'nest-mcp-playground:client';

/** What signing in needs, from the two metadata documents and the `playground` option. */
export interface SignInPlan {
  resource: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  scopes: string[];
}

interface PendingSignIn {
  state: string;
  verifier: string;
  clientId: string;
  tokenEndpoint: string;
  resource: string;
  redirectUri: string;
}

/** The endpoint's own URL without query: the redirect URI (the page answers it). */
export function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}

async function json(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    credentials: 'omit',
    ...init,
    headers: { accept: 'application/json', ...init?.headers },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Reads the Protected Resource Metadata (from the endpoint's own origin: the path of the challenge's
 * `resource_metadata`, or the path-suffixed well-known URI) and the authorization server's metadata (RFC 8414 location
 * first, then OpenID Connect discovery).
 */
export async function planSignIn(
  resourceMetadata: string | undefined,
  scopes: readonly string[] | undefined,
): Promise<SignInPlan> {
  const path = resourceMetadata
    ? new URL(resourceMetadata, location.href).pathname
    : `/.well-known/oauth-protected-resource${location.pathname}`;
  const prm = await json(path);
  const issuer = (prm.authorization_servers as string[] | undefined)?.[0];
  if (typeof prm.resource !== 'string' || typeof issuer !== 'string')
    throw new Error(`${path} names no resource or authorization server`);
  const issuerUrl = new URL(issuer);
  const candidates = [
    `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerUrl.pathname.replace(/\/$/, '')}`,
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
  ];
  let metadata: Record<string, unknown> | undefined;
  const problems: string[] = [];
  for (const candidate of candidates) {
    try {
      metadata = await json(candidate);
      break;
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (!metadata) throw new Error(`No authorization server metadata for ${issuer}: ${problems.join('; ')}`);
  if (typeof metadata.authorization_endpoint !== 'string' || typeof metadata.token_endpoint !== 'string') {
    throw new Error(`${issuer} has no authorization or token endpoint`);
  }
  const supported = Array.isArray(prm.scopes_supported) ? (prm.scopes_supported as string[]) : [];
  return {
    resource: prm.resource,
    issuer,
    authorizationEndpoint: metadata.authorization_endpoint,
    tokenEndpoint: metadata.token_endpoint,
    ...(typeof metadata.registration_endpoint === 'string' && { registrationEndpoint: metadata.registration_endpoint }),
    scopes: [...(scopes ?? supported)],
  };
}

/** A client id registered earlier in this browser for this authorization server and redirect URI, if any. */
export function registeredClient(plan: SignInPlan): string | undefined {
  const saved = JSON.parse(localStorage.getItem(CLIENT_KEY) ?? '{}') as Record<string, string>;
  return saved[`${plan.issuer} ${redirectUri()}`];
}

/** Dynamic client registration (RFC 7591): a public client whose redirect URI is the endpoint. */
export async function registerClient(plan: SignInPlan): Promise<string> {
  if (!plan.registrationEndpoint)
    throw new Error(`${plan.issuer} offers no client registration: give the page a client id`);
  const registered = await json(plan.registrationEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP playground',
      redirect_uris: [redirectUri()],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (typeof registered.client_id !== 'string') throw new Error('The registration answered no client_id');
  const saved = JSON.parse(localStorage.getItem(CLIENT_KEY) ?? '{}') as Record<string, string>;
  localStorage.setItem(
    CLIENT_KEY,
    JSON.stringify({ ...saved, [`${plan.issuer} ${redirectUri()}`]: registered.client_id }),
  );
  return registered.client_id;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Sends the browser to the authorization server (PKCE S256, `resource`, the plan's scopes). */
export async function startSignIn(plan: SignInPlan, clientId: string): Promise<void> {
  if (!crypto.subtle)
    throw new Error('Signing in needs a secure context: open the playground on localhost, 127.0.0.1 or https');
  const verifier = randomString();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const pending: PendingSignIn = {
    state: randomString(),
    verifier,
    clientId,
    tokenEndpoint: plan.tokenEndpoint,
    resource: plan.resource,
    redirectUri: redirectUri(),
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(plan.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: pending.redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: pending.state,
    resource: plan.resource,
    ...(plan.scopes.length > 0 && { scope: plan.scopes.join(' ') }),
  }).toString();
  location.assign(url.href);
}

/**
 * Back from the authorization server: redeems the `code` of the page's URL (the `state` must be the one sent) and
 * resolves with the access token; undefined when the URL carries no answer. The query is removed from the address bar.
 */
export async function completeSignIn(): Promise<string | undefined> {
  const query = new URLSearchParams(location.search);
  if (!query.has('code') && !query.has('error')) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as PendingSignIn | null;
  sessionStorage.removeItem(PENDING_KEY);
  history.replaceState(null, '', location.pathname);
  if (query.has('error'))
    throw new Error(
      `The authorization server refused: ${query.get('error')} ${query.get('error_description') ?? ''}`.trim(),
    );
  if (!pending || query.get('state') !== pending.state)
    throw new Error('This sign-in answer is not the one the page asked for (state mismatch)');
  const token = await json(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: query.get('code') ?? '',
      redirect_uri: pending.redirectUri,
      code_verifier: pending.verifier,
      client_id: pending.clientId,
      resource: pending.resource,
    }),
  });
  if (typeof token.access_token !== 'string') throw new Error('The token endpoint answered no access_token');
  return token.access_token;
}
