import type { FormAnswer as LibraryFormAnswer, UrlAnswer as LibraryUrlAnswer } from 'nest-mcp';

/* The answer types as docs/elicitation.md spells them out; this file stops compiling if nest-mcp's drift apart. */

// #region docs:answer-types
type FormAnswer<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };
type UrlAnswer = { action: 'accept' | 'decline' | 'cancel' };
// #endregion docs:answer-types

/** `true` only when A and B are assignable to each other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const sameAsTheLibrary: [
  Same<FormAnswer<{ confirm: boolean }>, LibraryFormAnswer<{ confirm: boolean }>>,
  Same<UrlAnswer, LibraryUrlAnswer>,
] = [true, true];
