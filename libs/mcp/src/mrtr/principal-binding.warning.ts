/** What the bootstrap check needs to know about the server (internal). */
export interface PrincipalBindingFacts {
  /** A `principal` resolver is configured. */
  hasPrincipal: boolean;
  /** The endpoint is served over HTTP (a stdio process has one client: nobody else can continue its calls). */
  servesHttp: boolean;
  /** The 2025-11-25 wire (sessions) is on. */
  legacyWire: boolean;
  /** Any tool, prompt or resource is registered: each may elicit, and so issue a `requestState`. */
  hasHandlers: boolean;
}

/**
 * The warning logged once at bootstrap when states or sessions could be continued by anyone who holds them: no
 * `principal` resolver on an HTTP endpoint that has handlers or sessions. Undefined when there is nothing to say.
 */
export function principalBindingWarning(facts: PrincipalBindingFacts): string | undefined {
  if (facts.hasPrincipal || !facts.servesHttp || (!facts.legacyWire && !facts.hasHandlers)) return undefined;
  const what = facts.legacyWire
    ? 'requestState values (multi-round calls) and 2025-11-25 sessions are'
    : 'requestState values (multi-round calls) are';
  return (
    `No principal resolver is configured: ${what} not bound to a caller, so whoever obtains one can continue it. ` +
    'Set the McpModule option "principal" from your authentication, e.g. principal: (request) => request.user?.sub.'
  );
}
