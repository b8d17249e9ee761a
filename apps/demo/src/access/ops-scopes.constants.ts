/** Reading the fleet: list and get services, read resources, write incident reports. */
export const OPS_READ = 'ops:read';
/** Changing the fleet: scale, restart, deploy, connect integrations. */
export const OPS_WRITE = 'ops:write';
/** Admin actions: decommission services, switch feature flags. */
export const OPS_ADMIN = 'ops:admin';

/** A broader scope satisfies the narrower ones: `ops:admin` ⊃ `ops:write` ⊃ `ops:read` (`auth.scopeHierarchy`). */
export const OPS_SCOPE_HIERARCHY: Record<string, readonly string[]> = {
  [OPS_ADMIN]: [OPS_WRITE],
  [OPS_WRITE]: [OPS_READ],
};
