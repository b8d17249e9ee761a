import { describe, expect, it } from 'vitest';
import {
  isCallToolResult,
  isContentBlock,
  promptResultOf,
  resourceResultOf,
  structuredToolResult,
  toolContentOf,
} from './result-shapers.js';

const text = (value: string) => ({ type: 'text', text: value });

describe('content detection', () => {
  it('knows a content block by its type, and a CallToolResult by a content array of blocks', () => {
    expect(['text', 'image', 'audio', 'resource_link', 'resource'].every((type) => isContentBlock({ type }))).toBe(
      true,
    );
    expect([
      isContentBlock({ type: 'video' }),
      isContentBlock({ text: 'x' }),
      isContentBlock('text'),
      isContentBlock([text('x')]),
    ]).toEqual([false, false, false, false]);
    expect(isCallToolResult({ content: [text('x')], isError: true })).toBe(true);
    expect(isCallToolResult({ content: [] })).toBe(true);
    expect([isCallToolResult({ content: ['x'] }), isCallToolResult({ content: 'x' }), isCallToolResult(null)]).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe('toolContentOf (a tool without output schema)', () => {
  it('sends a string as text, a block or blocks as content, and undefined as no content', () => {
    expect(toolContentOf('hello')).toEqual({ content: [text('hello')] });
    expect(toolContentOf(text('one'))).toEqual({ content: [text('one')] });
    expect(toolContentOf([text('a'), { type: 'image', data: 'AA==', mimeType: 'image/png' }])).toEqual({
      content: [text('a'), { type: 'image', data: 'AA==', mimeType: 'image/png' }],
    });
    expect(toolContentOf(undefined)).toEqual({ content: [] });
  });

  it('sends any other JSON value as structuredContent plus its serialized copy for text-only clients', () => {
    expect(toolContentOf({ temperature: 21 })).toEqual({
      content: [text('{"temperature":21}')],
      structuredContent: { temperature: 21 },
    });
    expect(toolContentOf(42)).toEqual({ content: [text('42')], structuredContent: 42 });
    expect(toolContentOf(null)).toEqual({ content: [text('null')], structuredContent: null });
    // An empty array, or an array that is not all blocks, is data.
    expect(toolContentOf([])).toEqual({ content: [text('[]')], structuredContent: [] });
    expect(toolContentOf([text('a'), 1])).toEqual({
      content: [text('[{"type":"text","text":"a"},1]')],
      structuredContent: [text('a'), 1],
    });
  });

  it('structuredToolResult never sends undefined: it becomes null', () => {
    expect(structuredToolResult(undefined)).toEqual({ content: [text('null')], structuredContent: null });
  });
});

describe('promptResultOf', () => {
  it('makes a string one user message, and adds the declared description', () => {
    expect(promptResultOf('Explain monads', 'Teaches')).toEqual({
      description: 'Teaches',
      messages: [{ role: 'user', content: text('Explain monads') }],
    });
    expect(promptResultOf('Explain monads')).toEqual({ messages: [{ role: 'user', content: text('Explain monads') }] });
  });

  it('accepts a list of strings and messages (string content is text), and one message', () => {
    const image = { type: 'image', data: 'AA==', mimeType: 'image/png' };
    expect(promptResultOf(['Hi', { role: 'assistant', content: 'Hello' }, { role: 'user', content: image }])).toEqual({
      messages: [
        { role: 'user', content: text('Hi') },
        { role: 'assistant', content: text('Hello') },
        { role: 'user', content: image },
      ],
    });
    expect(promptResultOf({ role: 'assistant', content: 'Sure' }, 'd')).toEqual({
      description: 'd',
      messages: [{ role: 'assistant', content: text('Sure') }],
    });
  });

  it('passes a full { messages } result through as the handler wrote it (its own description, or none)', () => {
    const full = { description: 'own', messages: [{ role: 'user', content: text('x') }] };
    expect(promptResultOf(full, 'declared')).toBe(full);
  });

  it.each([
    [42, 'a prompt must return a string, messages, or { messages }'],
    [undefined, 'a prompt must return a string, messages, or { messages }'],
    [
      [{ role: 'system', content: 'x' }],
      'a prompt message must be a string or { role: "user" | "assistant", content }',
    ],
    [
      [{ role: 'user', content: { type: 'video' } }],
      'a prompt message must be a string or { role: "user" | "assistant", content }',
    ],
  ])('refuses %j with a TypeError (the caller answers -32603)', (returned, message) => {
    expect(() => promptResultOf(returned)).toThrow(new TypeError(message));
  });
});

describe('resourceResultOf', () => {
  it('makes a string text contents for the URI, with the declared mimeType', () => {
    expect(resourceResultOf('# Readme', 'docs://readme', 'text/markdown')).toEqual({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Readme' }],
    });
    expect(resourceResultOf('x', 'docs://x')).toEqual({ contents: [{ uri: 'docs://x', text: 'x' }] });
  });

  it('makes bytes a base64 blob of exactly the view it was given', () => {
    const backing = Uint8Array.from([0, 1, 2, 3, 4, 5]);
    expect(resourceResultOf(backing.subarray(2, 4), 'bin://x')).toEqual({
      contents: [{ uri: 'bin://x', blob: Buffer.from([2, 3]).toString('base64') }],
    });
    expect(resourceResultOf(Buffer.from('hi'), 'bin://y', 'application/octet-stream').contents[0]).toEqual({
      uri: 'bin://y',
      mimeType: 'application/octet-stream',
      blob: 'aGk=',
    });
  });

  it('passes contents through: one object (completed with the URI and mimeType), a list, or { contents } with extra fields', () => {
    expect(resourceResultOf({ text: 'x' }, 'docs://a', 'text/plain')).toEqual({
      contents: [{ uri: 'docs://a', mimeType: 'text/plain', text: 'x' }],
    });
    expect(resourceResultOf({ uri: 'docs://a/part', blob: 'AA==' }, 'docs://a')).toEqual({
      contents: [{ uri: 'docs://a/part', blob: 'AA==' }],
    });
    const list = [
      { uri: 'docs://1', text: 'one' },
      { uri: 'docs://2', text: 'two' },
    ];
    expect(resourceResultOf(list, 'docs://{n}')).toEqual({ contents: list });
    expect(resourceResultOf({ contents: list, _meta: { k: 1 } }, 'docs://1')).toEqual({
      contents: list,
      _meta: { k: 1 },
    });
  });

  it.each([
    [42, 'a resource must return a string, bytes, contents, or { contents }'],
    [null, 'a resource must return a string, bytes, contents, or { contents }'],
    [{ mimeType: 'text/plain' }, 'resource contents need a uri and either text or blob'],
    [[{ uri: 'docs://1' }], 'resource contents need a uri and either text or blob'],
    [{ contents: [{ text: 'no uri' }] }, 'resource contents need a uri and either text or blob'],
  ])('refuses %j with a TypeError (the caller answers -32603)', (returned, message) => {
    expect(() => resourceResultOf(returned, 'docs://x')).toThrow(new TypeError(message));
  });
});
