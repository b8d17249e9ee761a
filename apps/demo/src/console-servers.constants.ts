/** The name of the console's server for everyone (`/mcp`): its tokens (`@InjectMcpRegistry`) and the testing kit's `server`. */
export const OPS_CONSOLE_SERVER = 'ops-console';
/** The name of the admin server (`/admin/mcp`). */
export const OPS_ADMIN_SERVER = 'ops-console-admin';
/** Where the admin server is served. */
export const OPS_ADMIN_PATH = '/admin/mcp';
