export { McpPlaygroundPages } from './playground.pages.js';
export type { PlaygroundDocument, PlaygroundPageConfig } from './playground-document.interface.js';
export { PLAYGROUND_CONFIG_ELEMENT_ID, PLAYGROUND_SANDBOX_QUERY } from './playground.constants.js';
