import type { EventsResults } from './workloads/events.workload.js';
import type { AuthResults } from './auth-result.interface.js';
import type { PairedResults } from './paired-result.interface.js';
import type { ScaleOutResults } from './scale-out-result.interface.js';
import type { ServerId } from './servers.js';
import type { TelemetryResults } from './workloads/telemetry.workload.js';

/** The JSON written to bench/results/<timestamp>-<mode>.json (one file per run). */

export interface EchoCell {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU (user + system, from the child's process.cpuUsage) per completed call, µs. */
  cpuUsPerCall: number;
  requests: number;
  failures: number;
}

export interface EchoResults {
  concurrencies: number[];
  /** server → concurrency → one cell per round, in round order. */
  rounds: Partial<Record<ServerId, Record<string, EchoCell[]>>>;
  /** server → concurrency → median of each field over the rounds. */
  medians: Partial<Record<ServerId, Record<string, EchoCell>>>;
}

export interface StreamCell {
  /** Progress frames received per second of the call (request sent → body ended). */
  notificationsPerSec: number;
  received: number;
  ms: number;
  firstFrameMs: number;
}

export interface StreamResults {
  counts: number[];
  rounds: Partial<Record<ServerId, Record<string, StreamCell[]>>>;
  medians: Partial<Record<ServerId, Record<string, StreamCell>>>;
}

export interface MemoryCell {
  calls: number;
  /** MB; RSS after start-up and a 1,000-call warm-up. */
  rssBeforeMb: number;
  rssAfterMb: number;
  rssAfterIdleMb: number;
  /** After idle and two forced full GCs. */
  rssAfterGcMb: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  heapAfterGcMb: number;
  growthMb: number;
  idleGrowthMb: number;
}

export interface MemoryResults {
  calls: number;
  idleSeconds: number;
  rounds: Partial<Record<ServerId, MemoryCell[]>>;
  medians: Partial<Record<ServerId, MemoryCell>>;
}

export interface ListenCell {
  streams: number;
  /** KB per open stream, after forced GC: RSS delta and heap delta divided by the number of streams. */
  rssKbPerStream: number;
  heapKbPerStream: number;
  openSeconds: number;
  /** Seconds from closing every stream client-side until the server had none open. */
  drainSeconds: number;
  /** MB of RSS above the baseline once every stream was closed again (after GC). */
  rssAfterCloseMb: number;
  /** MB of heap used above the baseline once every stream was closed again (after GC): a leak shows here. */
  heapAfterCloseMb: number;
}

export interface ListenResults {
  streams: number;
  rounds: Partial<Record<ServerId, ListenCell[]>>;
  medians: Partial<Record<ServerId, ListenCell>>;
  notes: string[];
}

export interface MrtrCell {
  plain: { rps: number; p50Ms: number; p99Ms: number };
  /** Round 1: the handler asks, the answer is `input_required` with a newly sealed requestState. */
  seal: { rps: number; p50Ms: number; p99Ms: number };
  /** Round 2: the retry with the answer; the state is opened and the handler replayed to completion. */
  replay: { rps: number; p50Ms: number; p99Ms: number };
}

export interface MrtrResults {
  concurrency: number;
  rounds: Partial<Record<ServerId, MrtrCell[]>>;
  medians: Partial<Record<ServerId, MrtrCell>>;
  /** In-process: µs per seal and per open of a one-answer state (AES-256-GCM), and the token size. */
  codec: Partial<Record<ServerId, { sealUs: number; openUs: number; tokenChars: number }>>;
}

export interface TasksCell {
  /** (a) `tools/call echo`, autocannon. */
  plain: { rps: number; p50Ms: number; p99Ms: number };
  /** (a) the same call from the closed-loop node:http client of the round trip (the round trip's baseline). */
  plainLoop: { rps: number; p50Ms: number; p99Ms: number };
  /** (b) `tools/call echo_task` → CreateTaskResult → `tasks/get` until completed; round trips/s; `polls`: mean tasks/get per trip. */
  roundTrip: { rps: number; p50Ms: number; p99Ms: number; polls: number };
  /** (c) `tasks/get` of one completed task, autocannon. */
  get: { rps: number; p50Ms: number; p99Ms: number };
}

export interface TasksResults {
  concurrency: number;
  rounds: Partial<Record<ServerId, TasksCell[]>>;
  medians: Partial<Record<ServerId, TasksCell>>;
}

export interface BootstrapCell {
  /** Process start → listening, measured inside the server. */
  bootMs: number;
  /** fork() → ready, measured by the harness. */
  spawnToReadyMs: number;
  rssMb: number;
  /** Listing every tool, following cursors (median of 5 after one warm listing). */
  listAllMs: number;
  pages: number;
  tools: number;
  /** First page of tools/list under load at concurrency 16. */
  firstPageRps: number;
}

export interface BootstrapResults {
  tools: number;
  variants: Record<string, { label: string; tools: number }>;
  rounds: Record<string, BootstrapCell[]>;
  medians: Record<string, BootstrapCell>;
}

export interface RatioRow {
  /** What is compared, e.g. "nest-mcp (Express) / bare Nest (Express)". */
  name: string;
  /** Where, e.g. "echo c=16 req/s". */
  metric: string;
  value: number;
}

export interface TargetRow {
  name: string;
  /** e.g. "≥ 0.85×". */
  target: string;
  /** Measured values, with where each was measured. */
  measured: { where: string; value: number; met: boolean }[];
  met: boolean;
  note?: string;
}

export interface ProfileFrame {
  functionName: string;
  location: string;
  selfMs: number;
  selfPercent: number;
}

export interface ProfileResults {
  server: ServerId;
  label: string;
  /** `echo` at concurrency 16, or one `count(10,000)` call after the other. */
  workload: 'echo' | 'stream';
  /** What `calls` counts: echo calls, or progress notifications received. */
  unit: 'call' | 'notification';
  seconds: number;
  calls: number;
  rps: number;
  totalMs: number;
  file: string;
  /** Frames by self time (busy time only: idle excluded). */
  top: ProfileFrame[];
  /** Self time by owner: nest-mcp, each package, Node core, V8, GC. */
  byCategory: { category: string; selfMs: number; selfPercent: number }[];
  /** Self time by nest-mcp file. */
  libFiles: { category: string; selfMs: number; selfPercent: number }[];
  /** nest-mcp functions by inclusive time (self + callees, including framework and Node calls they make). */
  libInclusive: ProfileFrame[];
}

export interface RunResult {
  meta: {
    startedAt: string;
    finishedAt: string;
    mode: 'quick' | 'full';
    options: Record<string, unknown>;
    node: string;
    cpus: number;
    cpuModel: string;
    loadAverage: { start: number[]; end: number[] };
    commit: string;
    dirty: boolean;
    /** With `--baseline DIR`: the commit of the other checkout, measured as `baseline-express` / `baseline-fastify`. */
    baselineCommit?: string;
    errors: string[];
  };
  echo?: EchoResults;
  stream?: StreamResults;
  memory?: MemoryResults;
  listen?: ListenResults;
  mrtr?: MrtrResults;
  tasks?: TasksResults;
  bootstrap?: BootstrapResults;
  /** The `redis` workload: scale-out on Redis against the in-memory components. */
  redis?: ScaleOutResults;
  /** The `auth` workload: the cost of JWT validation per call (issue #17). */
  auth?: AuthResults;
  /** The `cache` workload: a cached read-only tool against the uncached one (issue #30). */
  cache?: PairedResults;
  /** The `throttler` workload: the throttler's guard against no guard (issue #30). */
  throttler?: PairedResults;
  /** The `events` workload: push streams against listen notifications, webhooks, polls (issue #26). */
  events?: EventsResults;
  /** The `telemetry` workload: an OpenTelemetry SDK registered, the API alone, and `telemetry: false` (issue #27). */
  telemetry?: TelemetryResults;
  profile?: ProfileResults;
  ratios: RatioRow[];
  targets: TargetRow[];
}
