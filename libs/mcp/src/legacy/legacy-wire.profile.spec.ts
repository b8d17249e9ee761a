import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsFixtureModule } from '../../../../test/fixtures/events.fixture.js';
import { RecordingLogger } from '../../../../test/support/recording.logger.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpAuthError } from '../protocol/access-token.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpModernWire } from '../server/modern-wire.profile.js';
import { McpLegacyWire } from './legacy-wire.profile.js';

@Injectable()
class TaskTools {
  @McpTool({ description: 'May run as a task', task: 'optional' })
  slow(): string {
    return 'done';
  }
}

/**
 * The route tables of the two wire profiles: each wire holds its own routes, so nothing downstream asks which wire a
 * call is on (ADR 0030). The 2025-11-25 wire holds that revision's four task methods and no events method; the
 * 2026-07-28 wire the extension's three task methods and the events methods.
 */
describe('the wire profiles own their route tables', () => {
  let moduleRef: TestingModule;
  let modern: McpModernWire;
  let legacy: McpLegacyWire;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [EventsFixtureModule.forRoot()],
      providers: [TaskTools],
    }).compile();
    moduleRef.useLogger(new RecordingLogger());
    await moduleRef.init();
    modern = moduleRef.get(McpModernWire);
    legacy = moduleRef.get(McpLegacyWire);
  });
  afterAll(() => moduleRef.close());

  it('tasks: tasks/get, tasks/result, tasks/list and tasks/cancel of 2025-11-25 on sessions; tasks/get, tasks/update and tasks/cancel of the extension on 2026', () => {
    const has = (wire: McpModernWire | McpLegacyWire, method: string) => wire.findRoute(method) !== undefined;
    const methods = ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result', 'tasks/list'];
    expect(methods.filter((method) => has(modern, method))).toEqual(['tasks/get', 'tasks/update', 'tasks/cancel']);
    expect(methods.filter((method) => has(legacy, method))).toEqual([
      'tasks/get',
      'tasks/cancel',
      'tasks/result',
      'tasks/list',
    ]);
    // Not the same route: each wire answers with its own face of the extension.
    expect(legacy.findRoute('tasks/get')).not.toBe(modern.findRoute('tasks/get'));
  });

  it('events exist on 2026 only (no 2025 face); the core methods on both, each wire with its own tools/call', () => {
    expect(modern.findRoute('events/list')).toBeDefined();
    expect(legacy.findRoute('events/list')).toBeUndefined();
    for (const method of ['tools/list', 'tools/call', 'server/discover']) {
      expect([method, modern.findRoute(method) !== undefined, legacy.findRoute(method) !== undefined]).toEqual([
        method,
        true,
        true,
      ]);
    }
    expect(legacy.findRoute('tools/call')).not.toBe(modern.findRoute('tools/call'));
    expect([modern.connectionBound, legacy.connectionBound]).toEqual([true, false]);
  });

  describe('one rule for the HTTP status of a session error (errorAnswer)', () => {
    const answered = (error: McpError, raised: 'call' | 'session') => {
      const answer = legacy.errorAnswer(error, raised);
      return { status: answer.httpStatus, code: answer.error.code, same: answer.error === error };
    };
    const denied = () => new McpAuthError(403, 'Forbidden', 'Bearer error="insufficient_scope"');
    const throttled = () =>
      new McpError(McpErrorCode.InternalError, 'Too Many Requests', { retryAfterSeconds: 1 }, 429);

    it("a call's errors: HTTP 200 in the 2025-11-25 shape, whatever their status on 2026; authorization keeps its own", () => {
      expect(answered(McpError.missingCapability('needs elicitation', { elicitation: {} }), 'call')).toEqual({
        status: 200,
        code: McpErrorCode.InvalidParams,
        same: false,
      });
      expect(answered(McpError.resourceNotFound('file:///gone'), 'call')).toMatchObject({ status: 200, code: -32002 });
      expect(answered(throttled(), 'call')).toEqual({ status: 200, code: McpErrorCode.InternalError, same: false });
      // The error itself, so its challenge reaches WWW-Authenticate.
      expect(answered(denied(), 'call')).toEqual({ status: 403, code: McpErrorCode.InvalidRequest, same: true });
    });

    it("the session's own refusals keep their status and body; one with HTTP 200 takes the shape", () => {
      const gone = new McpError(McpErrorCode.InvalidRequest, 'Session not found', undefined, 404);
      expect(answered(gone, 'session')).toEqual({ status: 404, code: McpErrorCode.InvalidRequest, same: true });
      expect(answered(throttled(), 'session')).toEqual({ status: 429, code: McpErrorCode.InternalError, same: true });
      expect(answered(denied(), 'session')).toEqual({ status: 403, code: McpErrorCode.InvalidRequest, same: true });
      expect(answered(McpError.resourceNotFound('file:///gone'), 'session')).toMatchObject({
        status: 200,
        code: -32002,
        same: false,
      });
    });
  });
});
