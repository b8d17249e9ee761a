import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseProgressLine } from './progress-event.codec.js';
import { ProgressEventWriter } from './progress-event.writer.js';

/**
 * The stderr progress writer under concurrent calls (issue #29, item 4): a real child process runs concurrent calls
 * that write to its real stderr, a pipe this test reads, and every line must be one whole event — none cut, none
 * mixed with another — with each call's events all there, in order. Messages from a few bytes to well past the
 * pipe's 64 KiB buffer (a write then ends part-way and Node queues the rest), and a reader that falls behind (every
 * later write queued, and written out merged). The guarantee is per process: several processes sharing one pipe can
 * split each other's lines when the reader falls behind (seen here, under load), which is why each wrapped command
 * gets its own pipe (docs/stdio.md).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const FIXTURE = 'test/fixtures/progress-writer.fixture.ts';

/**
 * Runs the fixture; its stderr as lines (the last one ends with `\n`, so nothing follows it). With `stallMs`, the
 * pipe is not read for that long at first: it fills, and the writer's later writes queue up.
 */
async function stderrOf(calls: number, events: number, messageBytes: number, stallMs = 0): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--import', './test/support/ts-child.loader.mjs', FIXTURE, String(calls), String(events), String(messageBytes)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const chunks: Buffer[] = [];
  if (stallMs > 0) {
    child.stderr.pause();
    setTimeout(() => child.stderr.resume(), stallMs);
  }
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [code] = await once(child, 'close');
  const text = Buffer.concat(chunks).toString('utf8');
  expect(code, text.slice(0, 2_000)).toBe(0);
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

/** Every line one whole event; per call name, the progress values 1…events in order. */
function expectWholeEventsInOrder(lines: string[], names: string[], events: number, messageBytes: number): void {
  const seen = new Map<string, number[]>();
  for (const line of lines) {
    const parsed = parseProgressLine(line);
    if (parsed.kind !== 'event') throw new Error(`not one whole ProgressEvent: ${line.slice(0, 200)}…`);
    const [name, padding] = parsed.event.message!.split(' ');
    expect(padding).toBe('x'.repeat(messageBytes));
    expect(parsed.event.total).toBe(events);
    seen.set(name, [...(seen.get(name) ?? []), parsed.event.progress]);
  }
  expect([...seen.keys()].sort()).toEqual([...names].sort());
  const inOrder = Array.from({ length: events }, (_, index) => index + 1);
  for (const name of names) expect(seen.get(name), name).toEqual(inOrder);
}

describe('ProgressEventWriter on a real stderr pipe', () => {
  it('writes each event as one write of one whole line', () => {
    const writes: string[] = [];
    new ProgressEventWriter({ write: (chunk) => writes.push(chunk) }).write({
      type: 'progress',
      progress: 1,
      timestamp: '2026-11-29T12:00:00.000Z',
    });
    expect(writes).toEqual(['{"type":"progress","progress":1,"timestamp":"2026-11-29T12:00:00.000Z"}\n']);
  });

  it('16 concurrent calls × 100 events, short messages: every line whole, every call complete and in order', {
    timeout: 60_000,
  }, async () => {
    const lines = await stderrOf(16, 100, 8);
    expect(lines).toHaveLength(1_600);
    expectWholeEventsInOrder(
      lines,
      Array.from({ length: 16 }, (_, index) => String(index)),
      100,
      8,
    );
  });

  it('4 concurrent calls × 10 events of 200 KB each, past the pipe buffer: still whole lines', {
    timeout: 60_000,
  }, async () => {
    const lines = await stderrOf(4, 10, 200_000);
    expect(lines).toHaveLength(40);
    expectWholeEventsInOrder(lines, ['0', '1', '2', '3'], 10, 200_000);
  });

  it('8 concurrent calls × 50 events of 3 KB with a reader that falls behind (the pipe full for 1 s): still whole lines', {
    timeout: 60_000,
  }, async () => {
    const lines = await stderrOf(8, 50, 3_000, 1_000);
    expect(lines).toHaveLength(400);
    expectWholeEventsInOrder(
      lines,
      Array.from({ length: 8 }, (_, index) => String(index)),
      50,
      3_000,
    );
  });
});
