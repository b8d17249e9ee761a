/**
 * The label of the tasks extension (ext-tasks spec 2026-07-28: tasks, "Capability Negotiation"): the key a client
 * declares in `clientCapabilities.extensions` on a request and a server advertises in `server/discover`.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
