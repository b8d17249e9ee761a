export * from './delivery.policy.js';
export * from './in-memory-event-bus.js';
export * from './mcp-event-bus.interface.js';
export * from './mcp-event.interface.js';
export * from './mcp.publisher.js';
export * from './subscription-filter.js';
export * from './subscriptions.service.js';
