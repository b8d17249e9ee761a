import { describe, expect, it } from 'vitest';
import { NdjsonLineSplitter } from './ndjson-line.splitter.js';

function run(chunks: Buffer[], maxLineBytes = 1024, end = true) {
  const seen: string[] = [];
  const sink = { line: (text: string) => seen.push(text), oversized: () => seen.push('<oversized>') };
  const splitter = new NdjsonLineSplitter(maxLineBytes);
  for (const chunk of chunks) splitter.push(chunk, sink);
  if (end) splitter.end(sink);
  return seen;
}

describe('NdjsonLineSplitter', () => {
  it('cuts at \\n, strips \\r, skips blank lines and keeps a multi-byte character split across chunks', () => {
    const bytes = Buffer.from('{"a":"é🚀"}\r\n\n   \n{"b":2}\n', 'utf8');
    const chunks = [...bytes].map((byte) => Buffer.from([byte]));
    expect(run(chunks)).toEqual(['{"a":"é🚀"}', '{"b":2}']);
  });

  it('delivers a last line without newline at the end of input, and only then', () => {
    expect(run([Buffer.from('{"x":1}\n{"y":2}')], 1024, false)).toEqual(['{"x":1}']);
    expect(run([Buffer.from('{"x":1}\n{"y":2}')])).toEqual(['{"x":1}', '{"y":2}']);
  });

  it('drops a line longer than the bound as it arrives, reports it once, and goes on with the next', () => {
    const long = Buffer.from('x'.repeat(50));
    expect(run([Buffer.from('ok\n'), long, long, Buffer.from('tail\nnext\n')], 64)).toEqual([
      'ok',
      '<oversized>',
      'next',
    ]);
  });

  it('accepts a line of exactly the bound', () => {
    expect(run([Buffer.from(`${'y'.repeat(8)}\n`)], 8)).toEqual(['yyyyyyyy']);
  });
});
