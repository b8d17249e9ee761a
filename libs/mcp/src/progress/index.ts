export * from './illegal-progress.error.js';
export * from './mcp-progress-source.interface.js';
export * from './progress-sink.interface.js';
export * from './progress.emitters.js';
