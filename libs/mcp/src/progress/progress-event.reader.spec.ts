import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from './progress-event.interface.js';
import { readProgressLines } from './progress-event.reader.js';

function collect() {
  const seen = { events: [] as ProgressEvent[], rejected: [] as [string, string][], other: [] as string[] };
  return {
    seen,
    handlers: {
      onEvent: (event: ProgressEvent) => {
        if (event.progress < 0) throw new RangeError('negative');
        seen.events.push(event);
      },
      onRejected: (line: string, reason: string) => seen.rejected.push([line, reason]),
      onOther: (line: string) => seen.other.push(line),
    },
  };
}

describe('readProgressLines', () => {
  it('sorts lines split across chunks, CRLF and multi-byte characters included, and resolves at the end', async () => {
    const stream = new PassThrough();
    const { seen, handlers } = collect();
    const done = readProgressLines(stream, handlers);
    const text =
      'héllo wörld\r\n{"type":"progress","progress":1,"message":"ünïcode 🚀"}\n\n{"type":"progress","progress":-1}\n{"type":"progress","progress":"x"}\nlast line without newline';
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length; i += 7) stream.write(bytes.subarray(i, i + 7));
    stream.end();
    await done;
    expect(seen.events.map((event) => event.message)).toEqual(['ünïcode 🚀']);
    expect(seen.other).toEqual(['héllo wörld', 'last line without newline']);
    expect(seen.rejected).toEqual([
      ['{"type":"progress","progress":-1}', 'negative'],
      ['{"type":"progress","progress":"x"}', 'progress must be a number'],
    ]);
  });

  it('stops reading when the signal aborts', async () => {
    const stream = new PassThrough();
    const abort = new AbortController();
    const { seen, handlers } = collect();
    const done = readProgressLines(stream, handlers, abort.signal);
    stream.write('{"type":"progress","progress":1}\n');
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    await done;
    stream.write('{"type":"progress","progress":2}\n');
    expect(seen.events.map((event) => event.progress)).toEqual([1]);
  });

  it('rejects when the stream fails', async () => {
    const stream = new PassThrough();
    const done = readProgressLines(stream, collect().handlers);
    stream.destroy(new Error('broken pipe'));
    await expect(done).rejects.toThrow('broken pipe');
  });
});
