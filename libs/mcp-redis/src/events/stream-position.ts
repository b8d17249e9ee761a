/**
 * Positions of the Redis replay log: `<epoch>:<ms>-<seq>`, the stream entry id with both parts zero-padded to a fixed
 * width, so that positions of one log compare in log order as plain strings (the `McpEventStore` contract), and the
 * epoch of the log they belong to in front.
 * @internal
 */
export interface StreamPosition {
  readonly epoch: string;
  /** The Redis stream entry id, unpadded (`1733100000000-0`). */
  readonly id: string;
}

const MS_DIGITS = 15;
const SEQ_DIGITS = 10;
/** What `positionOf` makes: within Redis's 64-bit id parts by construction (ms: 15 digits, seq: 10). */
const POSITION = /^([0-9a-f]{12}):(\d{15})-(\d{10})$/;
const ENTRY_ID = /^(\d{1,20})-(\d{1,20})$/;

/** The position of entry `id` of the log of epoch `epoch`. */
export function positionOf(epoch: string, id: string): string {
  const [ms, seq] = id.split('-');
  return `${epoch}:${ms.padStart(MS_DIGITS, '0')}-${seq.padStart(SEQ_DIGITS, '0')}`;
}

/** A position made by `positionOf`, or undefined for anything else. */
export function parsePosition(position: string): StreamPosition | undefined {
  const match = POSITION.exec(position);
  if (!match) return undefined;
  return { epoch: match[1], id: `${unpad(match[2])}-${unpad(match[3])}` };
}

/** Whether `id` is a stream entry id. */
export function isEntryId(id: unknown): id is string {
  return typeof id === 'string' && ENTRY_ID.test(id);
}

/** Compares two stream entry ids in stream order (negative: `a` first). */
export function compareEntryIds(a: string, b: string): number {
  const padded = (id: string) => positionOf('', id);
  const left = padded(a);
  const right = padded(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function unpad(digits: string): string {
  return digits.replace(/^0+(?=\d)/, '');
}
