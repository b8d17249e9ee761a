export { OpsAdminGuard } from './ops-admin.guard.js';
export { OPS_ADMIN_ROLE, OPS_ROLE_HEADER } from './ops-role.constants.js';
