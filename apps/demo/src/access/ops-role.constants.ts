/**
 * The header that carries the caller's console role. In production an auth proxy (or a Passport strategy) sets it
 * after signing the operator in; the console only reads it.
 */
export const OPS_ROLE_HEADER = 'x-ops-role';

/** The role allowed to run admin tools. */
export const OPS_ADMIN_ROLE = 'admin';
