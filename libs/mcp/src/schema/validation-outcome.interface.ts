/** One validation failure. */
export interface SchemaIssue {
  /** JSON Pointer (RFC 6901) to the offending value, e.g. `/items/0/name`; `""` for the root. */
  path: string;
  /** Human-readable reason, e.g. `must be number`. */
  message: string;
}

/**
 * The result of {@link CompiledSchema.validate}: the (possibly transformed) value, or the issues found — at most
 * `MAX_SCHEMA_ISSUES` of them, with `omitted` counting those the validator reported beyond (absent when none, or
 * when the validator stopped at its first failure).
 */
export type ValidationOutcome<T = unknown> =
  | { valid: true; value: T }
  | { valid: false; issues: SchemaIssue[]; omitted?: number };
