import { describe, expect, it } from 'vitest';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { toLegacyError, toLegacyResult } from './legacy-result.shaper.js';
import { LEGACY_RESOURCE_NOT_FOUND } from './legacy-versions.constants.js';

const text = { type: 'text', text: '{}' };

describe('toLegacyResult (2026-07-28 result → 2025-11-25 shape)', () => {
  it('drops resultType and the cache hints, whatever the method', () => {
    const result = {
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      contents: [{ uri: 'docs://a', text: 'a' }],
    };
    expect(toLegacyResult('resources/read', result)).toEqual({ contents: [{ uri: 'docs://a', text: 'a' }] });
  });

  it('tools/list: keeps an outputSchema with an object root, drops any other (2025-11-25 allows only objects)', () => {
    const objectRoot = { name: 'weather', inputSchema: {}, outputSchema: { type: 'object', properties: {} } };
    const arrayRoot = { name: 'list', inputSchema: {}, outputSchema: { type: 'array' } };
    const none = { name: 'ping', inputSchema: {} };
    expect(toLegacyResult('tools/list', { tools: [objectRoot, arrayRoot, none], ttlMs: 0 })).toEqual({
      tools: [objectRoot, { name: 'list', inputSchema: {} }, none],
    });
  });

  it('tools/list with taskSupport: tools that may run as tasks get execution.taskSupport, others nothing (forbidden)', () => {
    const report = { name: 'report', inputSchema: {}, execution: { other: true } };
    const plain = { name: 'plain', inputSchema: {} };
    const support = (name: string) => (name === 'report' ? ('required' as const) : undefined);
    expect(toLegacyResult('tools/list', { tools: [report, plain] }, support)).toEqual({
      tools: [{ ...report, execution: { other: true, taskSupport: 'required' } }, plain],
    });
    // Without the lookup (no 2025-11-25 tasks) nothing is added.
    expect(toLegacyResult('tools/list', { tools: [plain] })).toEqual({ tools: [plain] });
  });

  it('tools/call: keeps object structuredContent and drops any other', () => {
    expect(toLegacyResult('tools/call', { content: [text], structuredContent: { celsius: 21 } })).toEqual({
      content: [text],
      structuredContent: { celsius: 21 },
    });
    for (const structuredContent of [[1, 2], 42, null, 'text']) {
      expect(toLegacyResult('tools/call', { resultType: 'complete', content: [text], structuredContent })).toEqual({
        content: [text],
      });
    }
  });

  it('leaves what it was given untouched (list pages are cached and shared by both wires)', () => {
    const page = { tools: [{ name: 'list', inputSchema: {}, outputSchema: { type: 'array' } }], ttlMs: 0 };
    const call = { resultType: 'complete', content: [text], structuredContent: [1] };
    const before = structuredClone([page, call]);
    toLegacyResult('tools/list', page as unknown as JsonObject);
    toLegacyResult('tools/call', call);
    expect([page, call]).toEqual(before);
  });
});

describe('toLegacyError (2026-07-28 error → 2025-11-25 code, HTTP 200)', () => {
  it('answers "Resource not found" with -32002 and its data', () => {
    const legacy = toLegacyError(McpError.resourceNotFound('docs://gone'));
    expect([legacy.code, legacy.message, legacy.data, LEGACY_RESOURCE_NOT_FOUND]).toEqual([
      -32002,
      'Resource not found',
      { uri: 'docs://gone' },
      -32002,
    ]);
  });

  it('turns the codes that only exist in 2026-07-28 (-32020..-32022) into -32602', () => {
    const modernOnly = [
      McpError.headerMismatch('Mcp-Method disagrees with the body'),
      McpError.missingCapability('Needs elicitation', { elicitation: {} }),
      McpError.unsupportedVersion('1999-01-01', ['2026-07-28']),
    ];
    for (const error of modernOnly) {
      const legacy = toLegacyError(error);
      expect([legacy.code, legacy.message, legacy.data, legacy.httpStatus]).toEqual([
        McpErrorCode.InvalidParams,
        error.message,
        error.data,
        200,
      ]);
    }
  });

  it('keeps every other code and its message and data, with HTTP 200 (on this wire a 404 means "session gone")', () => {
    const other = McpError.invalidParams('Unknown tool: x', { name: 'x' });
    expect(toLegacyError(other)).toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Unknown tool: x',
      data: { name: 'x' },
      httpStatus: 200,
    });
    const notFound = toLegacyError(McpError.methodNotFound('tasks/get'));
    expect([notFound.code, notFound.message, notFound.httpStatus]).toEqual([
      McpErrorCode.MethodNotFound,
      'Method not found: tasks/get',
      200,
    ]);
    expect(toLegacyError(McpError.internal()).code).toBe(McpErrorCode.InternalError);
  });
});
