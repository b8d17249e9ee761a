import { McpInput, type McpInputRequest, type McpToolContext } from 'nest-mcp';

/** The two calls of docs/elicitation.md, with requests of any kind. */
export async function ask<A, B>(
  ctx: McpToolContext,
  key: string,
  request: McpInputRequest<A>,
  requestA: McpInputRequest<A>,
  requestB: McpInputRequest<B>,
) {
  // #region docs:elicit-calls
  const answer = await ctx.elicit(key, request); // one question
  const answers = await ctx.elicitAll({ a: requestA, b: requestB }); // several, in one round
  // #endregion docs:elicit-calls
  return { answer, answers };
}

/** A handler that asks the client's model, then the user, then for the client's roots: one round each. */
export async function askEveryKind(ctx: McpToolContext) {
  // #region docs:other-requests
  const answer = await ctx.elicit(
    'draft',
    McpInput.sampling({
      messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about Nest' } }],
      maxTokens: 60,
    }),
  );
  const signIn = await ctx.elicit(
    'signIn',
    McpInput.url('Sign in to the example service', 'https://auth.example.com/start?flow=e2e'),
  );
  const { roots } = await ctx.elicit('roots', McpInput.roots());
  // #endregion docs:other-requests
  return { answer, signIn, roots };
}
