import { join, resolve } from 'node:path';
import { ALL_SERVER_IDS, BASELINE_OF, type ServerId } from './servers.js';

export const WORKLOADS = [
  'echo',
  'stream',
  'memory',
  'listen',
  'mrtr',
  'tasks',
  'bootstrap',
  'redis',
  'auth',
  'cache',
  'throttler',
  'events',
  'telemetry',
] as const;
export type WorkloadName = (typeof WORKLOADS)[number];

export interface BenchOptions {
  mode: 'quick' | 'full';
  /** Interleaved rounds per measurement (medians are taken over them). */
  rounds: number;
  /** Seconds of load per echo cell (server × concurrency × round). */
  echoSeconds: number;
  /** Seconds of unmeasured load per server before the first round. */
  warmupSeconds: number;
  concurrencies: number[];
  /** Progress notifications per streamed call. */
  streamCounts: number[];
  /** Calls between the two RSS readings of the memory workload. */
  memoryCalls: number;
  /** Seconds the server is left alone before the "after idle" reading. */
  idleSeconds: number;
  /** Idle `subscriptions/listen` streams held open at once. */
  listenStreams: number;
  /** Seconds of load per MRTR cell. */
  mrtrSeconds: number;
  /** Generated tools of the bootstrap workload. */
  bootstrapTools: number;
  /** `redis` workload: updates per publish→delivery latency cell. */
  redisUpdates: number;
  /** `redis` workload: listen streams receiving each fan-out update (spread over three replicas). */
  fanOutListeners: number;
  /** `redis` workload: updates per fan-out cell. */
  fanOutUpdates: number;
  /** `redis` workload: tasks per throughput cell. */
  redisTasks: number;
  workloads: WorkloadName[];
  /** Servers of the echo and stream workloads. */
  servers: ServerId[];
  /** Update docs/performance.md (default: full runs only). */
  docs: boolean;
  resultsDir: string;
  /** Instead of the workloads: CPU-profile this server under echo load, and summarise. */
  profile?: ServerId;
  profileSeconds: number;
  /** What runs while profiling: `echo` at concurrency 16, or `count(10,000)` streams. */
  profileWorkload: 'echo' | 'stream';
  /** Instead of running: regenerate docs/performance.md from this result file. */
  from?: string;
  /** Another checkout of nest-mcp whose build joins the echo and stream workloads as the baseline of this one. */
  baseline?: string;
}

const HELP = `npm run bench -- [options]

  --quick                 smoke run, about 3 minutes (short cells, fewer calls and streams)
  --rounds N              interleaved rounds per measurement (min 3; quick 3, full 5)
  --duration S            seconds of load per echo cell (quick 0.5, full 3)
  --only a,b              workloads: ${WORKLOADS.join(', ')}
  --servers a,b           servers of the echo/stream workloads: ${ALL_SERVER_IDS.join(', ')}
  --memory-calls N        calls between RSS readings (quick 5000, full 50000)
  --listen-streams N      idle listen streams (quick 1000, full 10000)
  --idle S                idle seconds before the after-idle RSS reading (quick 2, full 15)
  --redis-updates N       redis: updates per publish→delivery latency cell (quick 100, full 300)
  --fanout-listeners N    redis: listeners of the fan-out, over three replicas (10000)
  --fanout-updates N      redis: updates per fan-out cell (quick 5, full 20)
  --redis-tasks N         redis: tasks per throughput cell (quick 300, full 2000)
  --docs / --no-docs      update docs/performance.md (default: full runs only)
  --profile [target]      CPU-profile one server under echo load instead of the workloads: express | fastify
                          (nest-mcp on that adapter, default express) or a server id, e.g. nest-express;
                          --profile-workload echo|stream (echo at c=16, or count(10,000) calls in a row)
                          --profile-seconds S (quick 5, full 15)
  --baseline DIR          also measure nest-mcp as built in another checkout (a git worktree of the commit
                          before a change, after npm ci) in the same interleaved echo/stream rounds; ratios
                          "nest-mcp / nest-mcp <commit>" show what the change costs
  --from FILE             regenerate docs/performance.md from a result JSON, run nothing
`;

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function positive(name: string, value: string | undefined, integer = true): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number)))
    throw new Error(`${name} expects a positive ${integer ? 'integer' : 'number'}, got "${value}"`);
  return number;
}

export function parseOptions(argv: string[], root: string): BenchOptions {
  const quick = argv.includes('--quick');
  const options: BenchOptions = {
    mode: quick ? 'quick' : 'full',
    rounds: quick ? 3 : 5,
    echoSeconds: quick ? 0.5 : 3,
    warmupSeconds: quick ? 1 : 3,
    concurrencies: [1, 16, 64],
    streamCounts: [1_000, 10_000],
    memoryCalls: quick ? 5_000 : 50_000,
    idleSeconds: quick ? 2 : 15,
    listenStreams: quick ? 1_000 : 10_000,
    mrtrSeconds: quick ? 0.5 : 2,
    bootstrapTools: 1_000,
    redisUpdates: quick ? 100 : 300,
    fanOutListeners: 10_000,
    fanOutUpdates: quick ? 5 : 20,
    redisTasks: quick ? 300 : 2_000,
    workloads: [...WORKLOADS],
    servers: [...ALL_SERVER_IDS],
    docs: !quick,
    resultsDir: join(root, 'bench', 'results'),
    profileSeconds: quick ? 5 : 15,
    profileWorkload: 'echo',
  };
  let docsChosen = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    const next = () => {
      const value = argv[++index];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      return value;
    };
    switch (arg) {
      case '--quick':
        break;
      case '--rounds':
        options.rounds = Math.max(3, positive(arg, next()));
        break;
      case '--duration':
        options.echoSeconds = positive(arg, next(), false);
        options.mrtrSeconds = options.echoSeconds;
        break;
      case '--only': {
        const names = list(next());
        for (const name of names)
          if (!(WORKLOADS as readonly string[]).includes(name)) throw new Error(`Unknown workload "${name}"`);
        options.workloads = names as WorkloadName[];
        break;
      }
      case '--servers': {
        const ids = list(next());
        for (const id of ids) if (!(ALL_SERVER_IDS as string[]).includes(id)) throw new Error(`Unknown server "${id}"`);
        options.servers = ids as ServerId[];
        break;
      }
      case '--memory-calls':
        options.memoryCalls = positive(arg, next());
        break;
      case '--listen-streams':
        options.listenStreams = Math.min(15_000, positive(arg, next()));
        break;
      case '--idle':
        options.idleSeconds = positive(arg, next(), false);
        break;
      case '--redis-updates':
        options.redisUpdates = positive(arg, next());
        break;
      case '--fanout-listeners':
        // The in-memory process holds every stream, one socket each: stay under the servers' 20,000 and `ulimit -n`.
        options.fanOutListeners = Math.min(15_000, positive(arg, next()));
        break;
      case '--fanout-updates':
        options.fanOutUpdates = positive(arg, next());
        break;
      case '--redis-tasks':
        options.redisTasks = positive(arg, next());
        break;
      case '--docs':
        options.docs = true;
        docsChosen = true;
        break;
      case '--no-docs':
        options.docs = false;
        docsChosen = true;
        break;
      case '--profile': {
        const value = argv[index + 1];
        if (value === 'express' || value === 'fastify') options.profile = `nest-mcp-${value}`;
        else if ((ALL_SERVER_IDS as string[]).includes(value)) options.profile = value as ServerId;
        else {
          options.profile = 'nest-mcp-express';
          break;
        }
        index++;
        break;
      }
      case '--profile-workload': {
        const value = next();
        if (value !== 'echo' && value !== 'stream')
          throw new Error(`--profile-workload expects echo or stream, got "${value}"`);
        options.profileWorkload = value;
        break;
      }
      case '--profile-seconds':
        options.profileSeconds = positive(arg, next(), false);
        break;
      case '--from':
        options.from = next();
        break;
      case '--baseline':
        options.baseline = next();
        break;
      case '--help':
      case '-h':
        console.log(HELP);
        process.exit(0);
        break;
      default:
        throw new Error(`Unknown option "${arg}"\n\n${HELP}`);
    }
  }
  if (options.baseline !== undefined) {
    options.baseline = resolve(process.cwd(), options.baseline);
    for (const id of [...options.servers]) {
      const baseline = BASELINE_OF[id];
      if (baseline && !options.servers.includes(baseline)) options.servers.push(baseline);
    }
  }
  // The generated block of docs/performance.md holds complete full runs only, unless --docs says otherwise.
  if (!docsChosen) {
    const complete =
      options.workloads.length === WORKLOADS.length && ALL_SERVER_IDS.every((id) => options.servers.includes(id));
    options.docs = options.mode === 'full' && complete;
  }
  return options;
}
