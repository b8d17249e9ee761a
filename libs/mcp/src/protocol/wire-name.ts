/**
 * The protocol revision a call speaks: `modern` is the stateless 2026-07-28 wire, `legacy` a 2025-11-25 session.
 * Chosen once per call by its transport (the wire profile it hands to the call runner); a task record keeps the wire
 * it was created on, since each wire serves only its own tasks.
 */
export type McpWireName = 'modern' | 'legacy';
