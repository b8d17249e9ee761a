/**
 * The descriptions of refused tokens (`McpTokenError.description`, sent to the client as `error_description`). Fixed
 * texts: they say what is wrong and never quote the token or its claims.
 */
export const McpTokenMessages = {
  malformed: 'The token is malformed',
  notJwt: 'The token is not a signed JWT',
  tooLong: 'The token is too long',
  algorithm: 'The token is signed with an algorithm this resource does not accept',
  untrustedIssuer: 'The token was not issued by an authorization server this resource trusts',
  expired: 'The token expired',
  notYetValid: 'The token is not valid yet',
  wrongAudience: 'The token was not issued for this resource',
  noAudience: 'The token names no audience, so it was not issued for this resource',
  badSignature: 'The token signature is invalid',
  unknownKey: 'The token was signed with a key the authorization server does not publish',
  noSubject: 'The token has no subject',
  noIssuer: 'The token does not name its issuer',
  noExpiry: 'The token has no expiry',
  invalidClaim: (claim: string) => `The token's "${claim}" claim is invalid`,
  keysUnavailable: "The authorization server's signing keys could not be fetched; try again later",
  inactive: 'The token is not active (revoked, expired or unknown)',
  notAccessToken: 'The token is not a bearer access token',
  introspectionUnavailable: 'The token could not be checked with the authorization server; try again later',
  wrongType: 'The token is not of the type this resource requires',
  unverifiable: 'The token could not be verified',
} as const;
