import type { CliInvocation } from './cli-arguments.parser.js';
import { CliError } from './cli.error.js';
import type { ChannelNotification, TaskChannel } from './task.channel.js';
import { escapeUnsafeJson, sanitizeTerminalText } from './terminal-text.sanitizer.js';
import { buildArguments } from './tool-arguments.builder.js';

/** An event type as `events/list` describes it (SEP-3415). */
interface EventType {
  name: string;
  description?: string;
  delivery?: string[];
  inputSchema?: Record<string, unknown>;
}

/** What following a type needs: where lines go, and how they look. */
export interface EventsOutput {
  /** stdout. */
  out: { write(chunk: string): unknown };
  /** stderr, for the one-line notes of a terminal. */
  err: { write(chunk: string): unknown };
  /** Lines for people (a terminal) rather than NDJSON. */
  forPeople: boolean;
}

/** The fastest a poll loop polls, whatever `nextPollMs` says (a server asking for 0 is not hammered). */
const MIN_POLL_MS = 250;

/**
 * `nest-mcp events`: without a name, the catalog (every page of `events/list`); with one, one `events/poll` from
 * `--cursor` (else from now); with `--follow`, one line per event until the signal aborts — an `events/stream` when
 * the type offers push (and `--poll` was not given), else `events/poll` every `nextPollMs`. Arguments are typed by
 * the type's `inputSchema`, as a tool's.
 */
export async function runEvents(
  invocation: CliInvocation,
  channel: TaskChannel,
  signal: AbortSignal,
  output: EventsOutput,
): Promise<Record<string, unknown> | undefined> {
  const types = await listEventTypes(channel);
  if (invocation.name === undefined) return { events: types };
  const type = types.find((candidate) => candidate.name === invocation.name);
  if (!type)
    throw new CliError(`no event type named ${JSON.stringify(invocation.name)} (nest-mcp events <target> lists them)`);
  const args = buildArguments(invocation.args, invocation.json, type.inputSchema as never);
  const cursor = invocation.cursor ?? null;
  if (!invocation.follow) return channel.request('events/poll', { name: type.name, arguments: args, cursor });
  const printer = new EventLinePrinter(output);
  const push = !invocation.poll && (type.delivery ?? []).includes('push');
  if (push) await streamEvents(channel, type.name, args, cursor, signal, printer);
  else await pollEvents(channel, type.name, args, cursor, signal, printer);
  return undefined;
}

async function listEventTypes(channel: TaskChannel): Promise<EventType[]> {
  const types: EventType[] = [];
  let cursor: string | undefined;
  do {
    const page = await channel.request('events/list', cursor === undefined ? {} : { cursor });
    types.push(...((page.events ?? []) as EventType[]));
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  return types;
}

/** Follows a push stream until the server ends it or the signal aborts (the transport's close then ends the request). */
async function streamEvents(
  channel: TaskChannel,
  name: string,
  args: Record<string, unknown>,
  cursor: string | null,
  signal: AbortSignal,
  printer: EventLinePrinter,
): Promise<void> {
  const onNotification = ({ method, params }: ChannelNotification) => {
    if (method === 'notifications/events/event') printer.event(params);
    else if (method === 'notifications/events/active' && params.truncated === true)
      printer.control({ type: 'truncated', cursor: params.cursor ?? null });
    else if (method === 'notifications/events/terminated')
      printer.control({ type: 'terminated', error: params.error ?? null });
    else if (method === 'notifications/events/error')
      printer.note(`the server could not read its event log for a moment: ${describeError(params.error)}`);
  };
  const done = channel.stream('events/stream', { name, arguments: args, cursor }, onNotification);
  await Promise.race([done, aborted(signal)]);
}

/** Polls from the cursor, at the server's pace, until the signal aborts. */
async function pollEvents(
  channel: TaskChannel,
  name: string,
  args: Record<string, unknown>,
  cursor: string | null,
  signal: AbortSignal,
  printer: EventLinePrinter,
): Promise<void> {
  let at = cursor;
  while (!signal.aborted) {
    const result = await Promise.race([
      channel.request('events/poll', { name, arguments: args, cursor: at }),
      aborted(signal),
    ]);
    if (!result) return;
    if (result.truncated === true) printer.control({ type: 'truncated', cursor: result.cursor ?? null });
    for (const event of (result.events ?? []) as Record<string, unknown>[]) printer.event(event);
    at = typeof result.cursor === 'string' ? result.cursor : at;
    if (result.hasMore === true) continue;
    const wait = Math.max(MIN_POLL_MS, typeof result.nextPollMs === 'number' ? result.nextPollMs : 2_000);
    if (!(await sleep(wait, signal))) return;
  }
}

/**
 * One line per event: NDJSON `{eventId, name, timestamp, data, cursor}` (control lines `{type, …}`) for programs, or
 * `time  name  eventId  data` for people. Everything is the server's: JSON keeps no control character raw, a terminal
 * line shows each one escaped.
 */
class EventLinePrinter {
  constructor(private readonly output: EventsOutput) {}

  event(params: Record<string, unknown>): void {
    const { eventId, name, timestamp, data, cursor } = params;
    if (!this.output.forPeople) return this.json({ eventId, name, timestamp, data, cursor: cursor ?? null });
    const time = typeof timestamp === 'string' ? timestamp : '';
    this.output.out.write(
      `${sanitizeTerminalText(`${time}  ${String(name)}  ${String(eventId)}  ${JSON.stringify(data)}`, { multiline: false })}\n`,
    );
  }

  control(line: Record<string, unknown>): void {
    if (!this.output.forPeople) return this.json(line);
    this.note(
      line.type === 'truncated'
        ? 'events may have been missed here (the server resumed later than the cursor)'
        : `the server ended the stream: ${describeError(line.error)}`,
    );
  }

  note(text: string): void {
    this.output.err.write(`nest-mcp: ${sanitizeTerminalText(text, { multiline: false })}\n`);
  }

  private json(line: Record<string, unknown>): void {
    this.output.out.write(`${escapeUnsafeJson(JSON.stringify(line))}\n`);
  }
}

function describeError(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'unknown error';
}

/** Resolves (with undefined) once the signal aborts. */
function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}

/** Waits `ms`; resolves false when the signal aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve(true);
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
