import type {
  McpCompletionContext as Context,
  McpCompletionProvider as Provider,
  McpCompletionReturn as Return,
} from 'nest-mcp';

/*
 * The completion provider contract as docs/completion.md spells it out, checked against the types nest-mcp exports:
 * this file stops compiling when they drift apart.
 */

// #region docs:provider-contract
type McpCompletionProvider =
  | ((value: string, context: McpCompletionContext) => McpCompletionReturn | Promise<McpCompletionReturn>)
  | string;

interface McpCompletionContext {
  arguments: Record<string, string>; // the other arguments / variables the client already resolved
}

type McpCompletionReturn = string[] | { values: string[]; total?: number; hasMore?: boolean };
// #endregion docs:provider-contract

/** `true` only when A and B are assignable to each other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const sameAsTheLibrary: [
  Same<McpCompletionProvider, Provider>,
  Same<McpCompletionContext, Context>,
  Same<McpCompletionReturn, Return>,
] = [true, true, true];
