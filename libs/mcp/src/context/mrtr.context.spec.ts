import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CallCancellation } from '../protocol/call-cancellation.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { type ChannelMessage, ResponseChannel } from '../protocol/response-channel.js';
import { IllegalProgressError } from '../progress/illegal-progress.error.js';
import { MrtrContext } from './mrtr.context.js';
import { RecordingLogger } from '../../../../test/support/recording.logger.js';

/** The parts of a call's scope the tests change. */
interface TestScope {
  cancellation: CallCancellation;
  progressFallback?: (progress: number) => void;
}

/** A context on a channel whose messages are collected, and its scope. */
function contextFor(progressToken: string | number | undefined): {
  context: MrtrContext;
  sent: ChannelMessage[];
  scope: TestScope;
} {
  const channel = new ResponseChannel();
  const sent: ChannelMessage[] = [];
  channel.connect({ next: (message) => sent.push(message), complete: () => undefined });
  const scope: TestScope & Record<string, unknown> = {
    id: 1,
    method: 'tools/call',
    params: {},
    meta: { protocolVersion: '2026-07-28', clientCapabilities: {}, progressToken, raw: {} },
    cancellation: new CallCancellation(),
    channel,
    origin: 'in-process',
    settings: { logging: true, defaultLogLevel: 'info', progressFromWithoutToken: 'stderr' },
  };
  return { context: MrtrContext.open(scope as unknown as McpRequestScope, 'tool'), sent, scope };
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
    // A second emitter of the same request continues above the last value sent (one order per token).
    context.countingProgress().emit('counted');
    progress.emit(2 ** 53);
    expect(sent).toHaveLength(4);
    for (const message of sent) {
      if (message.type !== 'notification') throw new Error('expected notifications only');
      expect(message.json).toBe(JSON.stringify(message.message));
    }
  });

  it('sends nothing once the call is cancelled, and never creates the signal for it', () => {
    const { context, sent, scope } = contextFor('t');
    scope.cancellation.abort(new Error('gone'));
    context.countingProgress().emit();
    expect(sent).toHaveLength(0);
    expect(context.signal.aborted).toBe(true);
    expect((context.signal.reason as Error).message).toBe('gone');
  });
});

/** The progress values of the notifications a context sent. */
const progressValues = (sent: ChannelMessage[]) =>
  sent.map((message) =>
    message.type === 'notification' ? (message.message.params as { progress: number }).progress : Number.NaN,
  );

describe('MrtrContext progress: one order per request, across emitters and progressFrom', () => {
  it.each([
    ['with a progress token', 'tok'],
    ['without a progress token', undefined],
  ])('%s: a second emitter reporting below the first throws the same IllegalProgressError', (_label, token) => {
    const { context, sent } = contextFor(token);
    const first = context.doubleProgress();
    const second = context.longProgress();
    first.emit(10);
    let error: unknown;
    try {
      second.emit(3);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(IllegalProgressError);
    expect((error as Error).message).toMatch(
      /^progress must strictly increase across all emitters of a request: 3 after 10/,
    );
    second.emit(11);
    expect(() => first.emit(10.5)).toThrow(IllegalProgressError);
    expect(progressValues(sent)).toEqual(token === undefined ? [] : [10, 11]);
  });

  it('the stderr fallback (no token) only ever receives increasing values too', () => {
    const { context, scope } = contextFor(undefined);
    const fallback: number[] = [];
    scope.progressFallback = (progress) => fallback.push(progress);
    context.percentProgress().emit(0.5);
    expect(() => context.countingProgress().emit()).not.toThrow(); // 1 > 0.5
    expect(() => context.doubleProgress().emit(0.75)).toThrow(IllegalProgressError);
    expect(fallback).toEqual([0.5, 1]);
  });

  it('progressFrom after an emitter: a line below the emitter is skipped with a warning, a higher one is sent', async () => {
    const { context, sent } = contextFor('relay');
    const logger = new RecordingLogger();
    const emitter = context.doubleProgress(100);
    emitter.emit(50);
    const lines = [10, 60].map((progress) => `${JSON.stringify({ type: 'progress', progress, total: 100 })}\n`);
    await context.progressFrom(Readable.from(lines), { logger });
    expect(progressValues(sent)).toEqual([50, 60]);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(
      /^Skipped a progress line \(progress must strictly increase across all emitters of a request: 10 after 50/,
    );
    // And the emitter, after progressFrom went to 60, may not go back below it.
    expect(() => emitter.emit(55)).toThrow(IllegalProgressError);
    emitter.emit(70);
    expect(progressValues(sent)).toEqual([50, 60, 70]);
  });
});
