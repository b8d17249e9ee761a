/** A change that listen streams may be told about. */
export type McpChangeEvent =
  | { type: 'toolsListChanged' }
  | { type: 'promptsListChanged' }
  | { type: 'resourcesListChanged' }
  | { type: 'resourceUpdated'; uri: string };
