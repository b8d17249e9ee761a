export * from './illegal-progress.error.js';
export * from './mcp-progress-source.interface.js';
export * from './progress-sink.interface.js';
export * from './progress.emitters.js';
export * from './progress-event.codec.js';
export * from './progress-event.interface.js';
export * from './progress-event.reader.js';
export * from './progress-event.writer.js';
