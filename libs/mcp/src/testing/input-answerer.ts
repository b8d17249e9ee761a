import type { McpElicitHandler, McpTestingAnswer, McpTestingInputRequest } from './mcp-testing-input.interface.js';

/**
 * @internal Where the answers to a call's input requests come from, first match wins: the call's scripted answers,
 * the call's handler, the client's scripted answers, the client's handler. With none left, the test forgot one.
 */
export class InputAnswerer {
  private readonly queue: McpTestingAnswer[] = [];
  private handler?: McpElicitHandler;

  /** Answers not used yet. */
  get pending(): number {
    return this.queue.length;
  }

  enqueue(answers: McpTestingAnswer[]): void {
    this.queue.push(...answers);
  }

  handleWith(handler: McpElicitHandler): void {
    this.handler = handler;
  }

  async answer(
    request: McpTestingInputRequest,
    callAnswers: McpTestingAnswer[],
    callHandler?: McpElicitHandler,
  ): Promise<McpTestingAnswer> {
    if (callAnswers.length > 0) return callAnswers.shift()!;
    if (callHandler) return callHandler(request);
    if (this.queue.length > 0) return this.queue.shift()!;
    if (this.handler) return this.handler(request);
    throw new Error(
      `The handler asked for input "${request.key}" (${request.method}: ${request.params.message ?? ''}) in round ${request.round}, ` +
        'but the test has no answer for it: use client.onElicit(...) or client.answerWith(...)',
    );
  }
}
