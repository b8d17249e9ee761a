import { describe, expect, it } from 'vitest';
import { McpContent } from './mcp-content.js';
import { isCallToolResult, isContentBlock } from './result-shapers.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);

describe('McpContent builders', () => {
  it('text, with annotations only when given', () => {
    expect(McpContent.text('hi')).toEqual({ type: 'text', text: 'hi' });
    expect(McpContent.text('hi', { audience: ['user'], priority: 1 })).toEqual({
      type: 'text',
      text: 'hi',
      annotations: { audience: ['user'], priority: 1 },
    });
  });

  it('image and audio base64-encode bytes (only the view given) and take a string as base64 already', () => {
    expect(McpContent.image(PNG, 'image/png')).toEqual({ type: 'image', data: 'iVBORw==', mimeType: 'image/png' });
    const framed = Uint8Array.from([0, 0x89, 0x50, 0x4e, 0x47, 0]).subarray(1, 5);
    expect(McpContent.image(framed, 'image/png').data).toBe('iVBORw==');
    expect(McpContent.audio('UklGRg==', 'audio/wav', { priority: 0.5 })).toEqual({
      type: 'audio',
      data: 'UklGRg==',
      mimeType: 'audio/wav',
      annotations: { priority: 0.5 },
    });
  });

  it('resourceLink and embedded resources (text, or bytes as a blob)', () => {
    expect(McpContent.resourceLink({ uri: 'docs://readme', name: 'readme' })).toEqual({
      type: 'resource_link',
      uri: 'docs://readme',
      name: 'readme',
    });
    expect(McpContent.embedded('docs://a', 'body', 'text/plain')).toEqual({
      type: 'resource',
      resource: { uri: 'docs://a', text: 'body', mimeType: 'text/plain' },
    });
    expect(McpContent.embedded('bin://a', PNG)).toEqual({
      type: 'resource',
      resource: { uri: 'bin://a', blob: 'iVBORw==' },
    });
  });

  it('error is a whole tool result with isError, which tools pass through unchanged', () => {
    const result = McpContent.error('No flight that day');
    expect(result).toEqual({ content: [{ type: 'text', text: 'No flight that day' }], isError: true });
    expect(isCallToolResult(result)).toBe(true);
  });

  it('every block it builds is recognised as a content block', () => {
    const blocks = [
      McpContent.text('t'),
      McpContent.image(PNG, 'image/png'),
      McpContent.audio(PNG, 'audio/wav'),
      McpContent.resourceLink({ uri: 'docs://x', name: 'x' }),
      McpContent.embedded('docs://x', 'x'),
    ];
    expect(blocks.every(isContentBlock)).toBe(true);
  });
});
