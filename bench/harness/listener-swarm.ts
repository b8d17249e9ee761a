import { Agent, type ClientRequest, request as httpRequest } from 'node:http';
import { announce, runMain } from '../servers/server-runtime.js';
import { preciseNow } from '../servers/shared/precise-clock.js';
import { sleep } from './progress-log.js';
import { resourceListen } from './scale-out-wire.js';

/**
 * A child process of lean listeners for the scale-out workloads: it holds `subscriptions/listen` streams (raw
 * node:http, one socket each, frames found by text rather than parsed) and notes when each
 * `notifications/resources/updated` arrives, by the sequence number the bench puts at the end of the URI. Several
 * of these share the listeners of one measurement, so that reading 10,000 frames per update is not one process's
 * job and no process holds more sockets than `ulimit -n` allows.
 *
 * Driven over IPC like a bench server (servers/server-runtime.ts): `open`, `await`, `close`, `clock`.
 */

/** One socket per stream; never pooled. */
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
/** Streams opened at once while filling up. */
const OPEN_BATCH = 100;
const UPDATED_MARK = '"method":"notifications/resources/updated"';
const SEQUENCE = /"uri":"[^"]*\/(\d+)"/;

interface Group {
  /** Streams of this group still open. */
  open: Set<ClientRequest>;
  /** Sequence → arrival times (this process's `preciseNow`). */
  arrivals: Map<number, number[]>;
  /** Wakes `await` calls when an arrival completes a sequence, or a stream ends. */
  waiters: Set<() => void>;
}

const groups = new Map<string, Group>();

function groupOf(name: string): Group {
  let group = groups.get(name);
  if (!group) groups.set(name, (group = { open: new Set(), arrivals: new Map(), waiters: new Set() }));
  return group;
}

function wake(group: Group): void {
  for (const waiter of [...group.waiters]) waiter();
}

/** Opens one listen stream; resolves once the server acknowledged a filter that kept the resource subscription. */
function openStream(group: Group, url: string, uri: string, id: string, timeoutMs = 30_000): Promise<void> {
  const wire = resourceListen(id, uri);
  return new Promise((resolve, reject) => {
    let acknowledged = false;
    let buffer = '';
    const settle = (error?: Error) => {
      if (acknowledged) return;
      acknowledged = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const outgoing = httpRequest(
      url,
      { method: 'POST', agent, headers: { ...wire.headers, 'content-length': String(Buffer.byteLength(wire.body)) } },
      (response) => {
        if (!String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            settle(new Error(`expected an SSE stream from ${url}, got ${response.statusCode}: ${text.slice(0, 300)}`)),
          );
          return;
        }
        response.setEncoding('latin1');
        response.on('data', (chunk: string) => {
          const arrivedAt = preciseNow();
          buffer += chunk;
          let boundary = buffer.indexOf('\n\n');
          while (boundary !== -1) {
            const frame = buffer.slice(0, boundary);
            buffer = buffer.slice(boundary + 2);
            if (!acknowledged) {
              if (
                !frame.includes('notifications/subscriptions/acknowledged') ||
                !frame.includes('resourceSubscriptions')
              ) {
                settle(
                  new Error(
                    `the first frame from ${url} is not an acknowledgement keeping resourceSubscriptions: ${frame.slice(0, 300)}`,
                  ),
                );
                outgoing.destroy();
                return;
              }
              group.open.add(outgoing);
              settle();
            } else if (frame.includes(UPDATED_MARK)) {
              const sequence = Number(SEQUENCE.exec(frame)?.[1]);
              if (Number.isInteger(sequence)) {
                let times = group.arrivals.get(sequence);
                if (!times) group.arrivals.set(sequence, (times = []));
                times.push(arrivedAt);
                if (times.length >= group.open.size) wake(group);
              }
            }
            boundary = buffer.indexOf('\n\n');
          }
        });
        response.on('error', () => undefined);
        response.on('close', () => {
          if (group.open.delete(outgoing)) wake(group);
          settle(new Error(`the listen stream to ${url} closed before its acknowledgement`));
        });
      },
    );
    outgoing.on('error', (error) => {
      if (group.open.delete(outgoing)) wake(group);
      settle(error);
    });
    outgoing.end(wire.body);
    const timer = setTimeout(() => {
      outgoing.destroy();
      settle(new Error(`no acknowledgement from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
  });
}

interface OpenArgs {
  group: string;
  url: string;
  uri: string;
  count: number;
}

let nextId = 1;

async function open(args: OpenArgs): Promise<{ open: number; seconds: number }> {
  const group = groupOf(args.group);
  const started = preciseNow();
  let opened = 0;
  while (opened < args.count) {
    const batch = Math.min(OPEN_BATCH, args.count - opened);
    await Promise.all(
      Array.from({ length: batch }, () => openStream(group, args.url, args.uri, `${args.group}-${nextId++}`)),
    );
    opened += batch;
  }
  return { open: group.open.size, seconds: (preciseNow() - started) / 1000 };
}

interface AwaitArgs {
  group: string;
  sequence: number;
  timeoutMs: number;
  /** Return every arrival time (a few listeners), not only the summary. */
  withTimes?: boolean;
}

export interface Arrivals {
  /** Listeners that received the update. */
  count: number;
  /** Streams open when the wait ended. */
  open: number;
  /** Earliest, median and latest arrival, in this process's clock. */
  first: number;
  median: number;
  last: number;
  times?: number[];
}

/** Resolves once every open stream of the group received `sequence`, or after `timeoutMs` with what arrived. */
async function awaitArrivals(args: AwaitArgs): Promise<Arrivals> {
  const group = groupOf(args.group);
  const complete = () => (group.arrivals.get(args.sequence)?.length ?? 0) >= group.open.size;
  if (!complete()) {
    await new Promise<void>((resolve) => {
      const done = () => {
        if (!complete()) return;
        finish();
      };
      const finish = () => {
        clearTimeout(timer);
        group.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(finish, args.timeoutMs);
      group.waiters.add(done);
    });
  }
  const times = (group.arrivals.get(args.sequence) ?? []).sort((a, b) => a - b);
  group.arrivals.delete(args.sequence);
  return {
    count: times.length,
    open: group.open.size,
    first: times[0] ?? Number.NaN,
    median: times[Math.floor((times.length - 1) / 2)] ?? Number.NaN,
    last: times.at(-1) ?? Number.NaN,
    ...(args.withTimes ? { times } : {}),
  };
}

async function close(args: { group?: string } | undefined): Promise<number> {
  let closed = 0;
  for (const [name, group] of groups) {
    if (args?.group !== undefined && args.group !== name) continue;
    for (const stream of group.open) stream.destroy();
    closed += group.open.size;
    group.open.clear();
    groups.delete(name);
  }
  await sleep(100);
  return closed;
}

async function main(): Promise<void> {
  announce({
    name: 'listener swarm',
    port: 0,
    close: async () => void (await close(undefined)),
    commands: {
      clock: () => preciseNow(),
      open: (args) => open(args as OpenArgs),
      await: (args) => awaitArrivals(args as AwaitArgs),
      close: (args) => close(args as { group?: string } | undefined),
    },
  });
}

runMain(main);
