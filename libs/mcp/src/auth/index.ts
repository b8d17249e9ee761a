/*
 * What other folders may use of auth/: the token verifiers, scope judgement, the Bearer challenge, Protected Resource
 * Metadata and the startup check of the `auth` option. The HTTP plumbing and key sources stay inside this folder.
 */
export { validateAuthOptions } from './auth-options.validator.js';
export { McpTokenMessages } from './auth.messages.js';
export {
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_INTROSPECTION_CACHE_TTL_MS,
  DEFAULT_JWT_ALGORITHMS,
  OFFLINE_ACCESS_SCOPE,
  PROTECTED_RESOURCE_METADATA_PATH,
  SUPPORTED_JWT_ALGORITHMS,
} from './auth.constants.js';
export {
  authorizationServerMetadataUrls,
  fetchAuthorizationServerMetadata,
  type AuthorizationServerMetadata,
} from './authorization-server-metadata.js';
export {
  IntrospectionTokenVerifier,
  type IntrospectionTokenVerifierOptions,
  type IntrospectionTokenVerifierSettings,
} from './introspection-token.verifier.js';
export { JwtTokenVerifier, type JwtTokenVerifierOptions, type JwtTokenVerifierSettings } from './jwt-token.verifier.js';
export {
  buildProtectedResourceMetadata,
  protectedResourceMetadataLocation,
  protectedResourceMetadataUrl,
  type McpProtectedResourceMetadata,
  type McpProtectedResourceMetadataLocation,
} from './protected-resource-metadata.js';
export { audienceIncludes, isSameResource, normalizeResourceUri } from './resource-uri.util.js';
export { McpScopeMatcher } from './scope.matcher.js';
export { buildBearerChallenge, type McpBearerChallenge, type McpBearerErrorCode } from './www-authenticate.js';
