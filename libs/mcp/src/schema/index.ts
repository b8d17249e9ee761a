export * from './compile-schema.util.js';
export * from './compiled-schema.interface.js';
export * from './schema-definition.error.js';
export * from './schema-input.interface.js';
export { formatIssues, formatKeys } from './schema-issues.util.js';
export * from './validation-outcome.interface.js';
