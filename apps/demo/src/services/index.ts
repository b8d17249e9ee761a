export { ServicesModule } from './services.module.js';
export { ServiceCatalog } from './service-catalog.service.js';
export type { ManagedService, ServiceFilter } from './managed-service.interface.js';
export { ServiceStatus } from './service-status.enum.js';
export { ServiceNameDto } from './dto/index.js';
