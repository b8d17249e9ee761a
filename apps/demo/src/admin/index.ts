export { AdminModule } from './admin.module.js';
export { DecommissionTools } from './decommission.tools.js';
