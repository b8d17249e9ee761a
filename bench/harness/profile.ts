import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { verifyEcho } from './fleet.js';
import { streamCall } from './http-client.js';
import { runLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { log } from './progress-log.js';
import type { ProfileFrame, ProfileResults } from './result.interface.js';
import { ServerProcess } from './server-process.js';
import { SERVERS } from './servers.js';
import { toolCall } from './wire.js';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Who a frame belongs to: the library, a package, Node core, or V8 itself. */
function categoryOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    return 'V8 builtins / native';
  }
  if (url.includes('/libs/mcp/src/')) return 'nest-mcp (libs/mcp)';
  if (url.startsWith('node:')) return 'Node core';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.includes('/bench/')) return 'bench server';
  return 'other';
}

/** A short, stable location: `node_modules/x/y.js:12`, `libs/mcp/src/x.js:12`, `node:events:552`. */
function locationOf(url: string, lineNumber: number, root: string): string {
  if (!url) return '';
  let file = url;
  if (url.startsWith('file://')) {
    const path = new URL(url).pathname;
    const modules = path.lastIndexOf('/node_modules/');
    file = modules !== -1 ? path.slice(modules + 1) : relative(root, path).replace(/^dist\/bench\//, '');
  }
  return `${file}:${lineNumber + 1}`;
}

type Summary = Pick<ProfileResults, 'top' | 'byCategory' | 'totalMs' | 'libFiles' | 'libInclusive'>;

/** Self time per frame, per category and per library file, and inclusive time of library functions. */
export function summariseProfile(profile: CpuProfile, root: string, topCount = 30): Summary {
  const byNode = new Map<number, CpuProfileNode>(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const frames = new Map<string, { functionName: string; location: string; us: number }>();
  const categories = new Map<string, number>();
  const libFiles = new Map<string, number>();
  const inclusive = new Map<string, { functionName: string; location: string; us: number }>();
  const keyOf = (node: CpuProfileNode) => {
    const frame = node.callFrame;
    const location = locationOf(frame.url, frame.lineNumber, root);
    return { key: `${frame.functionName}@${location}`, functionName: frame.functionName || '(anonymous)', location };
  };
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byNode.get(id);
    if (!node) continue;
    const frame = node.callFrame;
    const category = categoryOf(frame.url, frame.functionName);
    if (category === 'idle') continue;
    busyUs += us;
    categories.set(category, (categories.get(category) ?? 0) + us);
    const { key, functionName, location } = keyOf(node);
    const entry = frames.get(key) ?? { functionName, location, us: 0 };
    entry.us += us;
    frames.set(key, entry);
    if (category === 'nest-mcp (libs/mcp)') {
      const file = location.slice(0, location.lastIndexOf(':'));
      libFiles.set(file, (libFiles.get(file) ?? 0) + us);
    }
    // Inclusive time of library functions: this node's self time counts once for each distinct library frame on
    // its stack (recursion counted once).
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const ancestor = byNode.get(current);
      if (!ancestor?.callFrame.url.includes('/libs/mcp/src/')) continue;
      const info = keyOf(ancestor);
      if (seen.has(info.key)) continue;
      seen.add(info.key);
      const total = inclusive.get(info.key) ?? { functionName: info.functionName, location: info.location, us: 0 };
      total.us += us;
      inclusive.set(info.key, total);
    }
  }
  const percent = (us: number) => (busyUs > 0 ? (100 * us) / busyUs : 0);
  const rank = (
    entries: Iterable<{ functionName: string; location: string; us: number }>,
    count: number,
  ): ProfileFrame[] =>
    [...entries]
      .sort((a, b) => b.us - a.us)
      .slice(0, count)
      .map((entry) => ({
        functionName: entry.functionName,
        location: entry.location,
        selfMs: entry.us / 1000,
        selfPercent: percent(entry.us),
      }));
  return {
    totalMs: busyUs / 1000,
    top: rank(frames.values(), topCount),
    byCategory: [...categories.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([category, us]) => ({ category, selfMs: us / 1000, selfPercent: percent(us) })),
    libFiles: [...libFiles.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([file, us]) => ({ category: file, selfMs: us / 1000, selfPercent: percent(us) })),
    libInclusive: rank(inclusive.values(), 20),
  };
}

/**
 * Loads a server (nest-mcp by default; a floor, to compare) with `echo` at concurrency 16 and CPU-profiles its process during the measured window only
 * (V8 sampling profiler through `node:inspector`, started and stopped over IPC: the same `.cpuprofile` format as
 * `node --cpu-prof`, without start-up and warm-up), then summarises self time. Profiles go to dist/bench/profiles
 * (not committed); open one in Chrome DevTools or speedscope for the call tree.
 */
/** Streams `count(10,000)` calls one after the other for `seconds`; returns the notifications received. */
async function streamFor(url: string, seconds: number): Promise<{ units: number; seconds: number }> {
  const started = Date.now();
  const deadline = started + seconds * 1000;
  let units = 0;
  for (let id = 1; Date.now() < deadline; id++) {
    const answer = await streamCall(url, toolCall(id, 'count', { n: 10_000 }, { progressToken: 'bench' }));
    units += answer.notifications;
  }
  return { units, seconds: (Date.now() - started) / 1000 };
}

export async function runProfile(options: BenchOptions, root: string): Promise<ProfileResults> {
  const id = options.profile ?? 'nest-mcp-express';
  const workload = options.profileWorkload;
  const spec = SERVERS[id];
  const dir = join(root, 'dist', 'bench', 'profiles');
  mkdirSync(dir, { recursive: true });
  const name = `${id}-${workload}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
  const file = join(dir, name);
  const server = await ServerProcess.start(spec.label, spec.launch);
  let units = 0;
  let seconds = 0;
  try {
    await verifyEcho(spec, server);
    if (workload === 'stream') {
      const url = server.url(spec.streamPath);
      log(`profile: warm-up, then ${options.profileSeconds} s of count(10,000) calls, one at a time, on ${spec.label}`);
      await streamFor(url, options.warmupSeconds);
      await server.request('profile-start', { intervalUs: 200 });
      ({ units, seconds } = await streamFor(url, options.profileSeconds));
    } else {
      const request = toolCall(1, 'echo', { text: 'hello' });
      log(`profile: warm-up, then ${options.profileSeconds} s of echo at c=16 on ${spec.label}`);
      await runLoad({ url: server.url(spec.echoPath), request, connections: 16, seconds: options.warmupSeconds });
      await server.request('profile-start', { intervalUs: 200 });
      const load = await runLoad({
        url: server.url(spec.echoPath),
        request,
        connections: 16,
        seconds: options.profileSeconds,
      });
      units = load.requests;
      seconds = load.seconds;
    }
    await server.request('profile-stop', { path: file });
  } finally {
    await server.stop();
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const summary = summariseProfile(profile, root);
  return {
    server: id,
    label: spec.label,
    workload,
    unit: workload === 'stream' ? 'notification' : 'call',
    seconds,
    calls: units,
    rps: units / (seconds || 1),
    file: relative(root, file),
    ...summary,
  };
}
