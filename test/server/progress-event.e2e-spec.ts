import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProgressEvent, formatProgressEvent, parseProgressLine, type ProgressEvent } from 'nest-mcp/backend';
import { describe, expect, it } from 'vitest';

interface GoldenCase {
  name: string;
  report: { progress: number; total?: number; message?: string };
  traceparent?: string;
  now: string;
  line: string;
}

const golden = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../golden/progress-event.json'), 'utf8'),
) as {
  schema: object;
  keyOrder: string[];
  cases: GoldenCase[];
};
const validate = new Ajv2020({ strict: true }).compile(golden.schema);

/** The ProgressEvent contract against its golden file: the exact bytes written, and the schema every line obeys. */
describe('ProgressEvent golden file', () => {
  it.each(golden.cases.map((entry) => [entry.name, entry] as const))(
    'writes exactly the golden line: %s',
    (_name, entry) => {
      const event = createProgressEvent(entry.report, { traceparent: entry.traceparent, now: new Date(entry.now) });
      expect(formatProgressEvent(event)).toBe(entry.line);
      expect(entry.line.endsWith('\n') && !entry.line.slice(0, -1).includes('\n')).toBe(true);
    },
  );

  it.each(golden.cases.map((entry) => [entry.name, entry] as const))(
    'the golden line obeys the schema and reads back: %s',
    (_name, entry) => {
      const value = JSON.parse(entry.line) as Record<string, unknown>;
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
      expect(Object.keys(value)).toEqual(golden.keyOrder.filter((key) => key in value));
      expect(parseProgressLine(entry.line)).toEqual({ kind: 'event', event: value });
    },
  );

  it('names exactly the keys of the exported ProgressEvent type', () => {
    const full: Required<ProgressEvent> = {
      type: 'progress',
      progress: 1,
      total: 2,
      message: 'm',
      timestamp: 't',
      traceId: 'a',
      spanId: 'b',
    };
    expect(Object.keys(full)).toEqual(golden.keyOrder);
    expect(Object.keys((golden.schema as { properties: object }).properties)).toEqual(golden.keyOrder);
  });
});
