/**
 * The real authorization server (oidc-provider on loopback) of the authorization tests. It lives in
 * `scripts/auth/authorization-server.ts`, shared with the demo (`npm start -- --auth`); the names here are the ones the
 * tests were written against.
 */
export {
  BAD_TOKEN_KINDS,
  type AuthorizationCodeRequest,
  type BadTokenKind,
  type ClientCredentialsRequest,
  type ConfidentialClient as TestConfidentialClient,
  isLoopbackResource,
  type LocalAuthorizationServer as TestAuthorizationServer,
  type LocalAuthorizationServerOptions as TestAuthorizationServerOptions,
  type MintRequest,
  type PublicClient as TestPublicClient,
  startAuthorizationServer,
  type TokenResponse,
} from '../../scripts/auth/authorization-server.js';
