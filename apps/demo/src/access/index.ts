export { OpsAdminGuard } from './ops-admin.guard.js';
export { OPS_ADMIN_ROLE, OPS_ROLE_HEADER } from './ops-role.constants.js';
export { OPS_ADMIN, OPS_READ, OPS_SCOPE_HIERARCHY, OPS_WRITE } from './ops-scopes.constants.js';
export { OPS_ADMIN_AUTH, OPS_AUTH, type OpsAuthEnv, opsAuthOptions } from './ops-auth.config.js';
export { OpsScopes } from './ops-scopes.decorator.js';
