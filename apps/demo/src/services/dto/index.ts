export * from './list-services.dto.js';
export * from './restart-service.dto.js';
export * from './scale-service.dto.js';
export * from './service-list.dto.js';
export * from './service-name.dto.js';
export * from './service.dto.js';
