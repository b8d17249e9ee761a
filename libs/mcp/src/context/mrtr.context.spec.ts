import { describe, expect, it } from 'vitest';
import { CallCancellation } from '../protocol/call-cancellation.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { type ChannelMessage, ResponseChannel } from '../protocol/response-channel.js';
import { MrtrContext } from './mrtr.context.js';

/** A context on a channel whose messages are collected. */
function contextFor(progressToken: string | number | undefined): { context: MrtrContext; sent: ChannelMessage[] } {
  const channel = new ResponseChannel();
  const sent: ChannelMessage[] = [];
  channel.connect({ next: (message) => sent.push(message), complete: () => undefined });
  const scope = {
    id: 1,
    method: 'tools/call',
    params: {},
    meta: { protocolVersion: '2026-07-28', clientCapabilities: {}, progressToken, raw: {} },
    cancellation: new CallCancellation(),
    channel,
  } as unknown as McpRequestScope;
  return { context: new MrtrContext(scope, 'tool'), sent };
}

describe('MrtrContext progress serialization', () => {
  it.each([
    ['a string token', 'tok-1'],
    ['a token that needs escaping', 'quote " backslash \\ newline \n é 🚀'],
    ['a number token', 42],
  ])('sends the exact JSON.stringify of the notification, for %s', (_label, token) => {
    const { context, sent } = contextFor(token);
    const progress = context.doubleProgress(1e21);
    progress.emit(1e-7);
    progress.emit(0.5, 'half "way" \u2028 there');
    progress.emit(2 ** 53);
    context.countingProgress().emit('counted');
    expect(sent).toHaveLength(4);
    for (const message of sent) {
      if (message.type !== 'notification') throw new Error('expected notifications only');
      expect(message.json).toBe(JSON.stringify(message.message));
    }
  });

  it('sends nothing once the call is cancelled, and never creates the signal for it', () => {
    const { context, sent } = contextFor('t');
    const scope = (context as unknown as { scope: McpRequestScope }).scope;
    scope.cancellation.abort(new Error('gone'));
    context.countingProgress().emit();
    expect(sent).toHaveLength(0);
    expect(context.signal.aborted).toBe(true);
    expect((context.signal.reason as Error).message).toBe('gone');
  });
});
