import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { REPO_ROOT } from './forked-server.js';
import { freePort } from './free-port.js';
import { type NginxBalancer, startNginx } from './nginx.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

/** One demo replica: a child process on its own loopback port. */
export interface Replica {
  /** 0, 1, 2… in start order. */
  readonly index: number;
  readonly port: number;
  readonly pid: number;
  /** `http://127.0.0.1:<port>`, to call this replica directly (not through the balancer). */
  readonly baseUrl: string;
  /** Its MCP endpoint. */
  readonly mcpUrl: URL;
  /** Its admin server's endpoint (`/admin/mcp`: decommission_service, set_feature_flag). */
  readonly adminUrl: URL;
  /** `127.0.0.1:<port>`, as nginx's `X-Upstream` names it. */
  readonly address: string;
  /** Its `sessionRoute` (`MCP_SESSION_ROUTE`, `r1`, `r2`…): the start of its 2025-11-25 session ids. */
  readonly route: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr), colours off. */
  output(): string;
  /** Whether the process still runs. */
  alive(): boolean;
  /** SIGKILL, as a crashed host or `kill -9`; resolves once it exited. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful shutdown); resolves once it exited. */
  stop(): Promise<void>;
}

/** Redis (AOF on), N demo replicas on it and nginx in front of them. */
export interface DemoCluster {
  readonly adapter: 'express' | 'fastify';
  readonly redis: RedisServer;
  readonly replicas: readonly Replica[];
  readonly nginx: NginxBalancer;
  /** The MCP endpoint behind the balancer. */
  readonly mcpUrl: URL;
  /** The admin server's endpoint behind the balancer. */
  readonly adminUrl: URL;
  /** The shared `MCP_STATE_KEYS`. */
  readonly stateKeys: string;
  /** The replica whose process id is `pid` (e.g. from BullMQ's `job.processedBy`). */
  replicaByPid(pid: number): Replica | undefined;
  /** The replica listening on `address` (`127.0.0.1:<port>`, from `X-Upstream`). */
  replicaByAddress(address: string): Replica | undefined;
  /** Everything every replica printed. */
  output(): string;
  /** Stops nginx, every replica and Redis, and removes their directories. */
  dispose(): Promise<void>;
}

/** Options of `startCluster`. */
export interface ClusterOptions {
  adapter?: 'express' | 'fastify';
  /** Default 3. */
  replicas?: number;
  /**
   * BullMQ's lock on a task round and its stalled-job check interval (`MCP_TASK_LOCK_MS`), so that a killed replica's
   * round is re-run within seconds. Default 2,000.
   */
  taskLockMs?: number;
  /** Length of a step of the demo's incident_report (`INCIDENT_STEP_MS`). Default 1,000. */
  incidentStepMs?: number;
  /**
   * Runs every replica with `--otel` (apps/demo/src/observability/telemetry.setup.ts): traces by OTLP/HTTP to
   * `tracesUrl`, each replica as service `replica-<index>`, its Prometheus metrics on a free port of its own.
   */
  otel?: { tracesUrl: string };
}

/** How long a replica may take to start: each child compiles the sources with SWC (two cores on CI). */
const REPLICA_START_MS = 60_000;
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))\/mcp/;

/**
 * Starts redis-server with AOF on, `replicas` demo processes (apps/demo/src/main.ts through the SWC loader, no build)
 * with `REDIS_URL`, one shared `MCP_STATE_KEYS`, their own `MCP_SESSION_ROUTE` and `PORT=0`, and nginx in front of
 * them (2025-11-25 sessions sticky on their route). Each replica reports its port in the demo's "listening on" log
 * line.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<DemoCluster> {
  const adapter = options.adapter ?? 'express';
  const stateKeys = randomBytes(32).toString('base64');
  const redis = await startRedisServer({ aof: true });
  const replicas: Replica[] = [];
  let nginx: NginxBalancer | undefined;
  const dispose = async () => {
    await nginx?.dispose();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.dispose();
  };
  try {
    const env = {
      ADAPTER: adapter,
      REDIS_URL: redis.url,
      MCP_STATE_KEYS: stateKeys,
      MCP_TASK_LOCK_MS: String(options.taskLockMs ?? 2_000),
      INCIDENT_STEP_MS: String(options.incidentStepMs ?? 1_000),
    };
    const started = await Promise.allSettled(
      Array.from({ length: options.replicas ?? 3 }, async (_, index) => {
        const replicaEnv = { ...env, MCP_SESSION_ROUTE: `r${index + 1}` };
        if (!options.otel) return startReplica(index, replicaEnv);
        const otelEnv = {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: options.otel.tracesUrl,
          OTEL_SERVICE_NAME: `replica-${index}`,
          OTEL_EXPORTER_PROMETHEUS_PORT: String(await freePort()),
        };
        return startReplica(index, { ...replicaEnv, ...otelEnv }, ['--otel']);
      }),
    );
    for (const result of started) if (result.status === 'fulfilled') replicas.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    replicas.sort((a, b) => a.index - b.index);
    nginx = await startNginx({
      upstreams: replicas.map((replica) => replica.port),
      sessionRoutes: replicas.map((replica) => replica.route),
    });
  } catch (error) {
    await dispose();
    throw error;
  }
  const balancer = nginx;
  return {
    adapter,
    redis,
    replicas,
    nginx: balancer,
    mcpUrl: new URL(`${balancer.url}/mcp`),
    adminUrl: new URL(`${balancer.url}/admin/mcp`),
    stateKeys,
    replicaByPid: (pid) => replicas.find((replica) => replica.pid === pid),
    replicaByAddress: (address) => replicas.find((replica) => replica.address === address),
    output: () =>
      replicas.map((replica) => `--- replica ${replica.index} (pid ${replica.pid})\n${replica.output()}`).join('\n'),
    dispose,
  };
}

/** Starts one demo replica and resolves once it printed the URL it listens on. */
export async function startReplica(
  index: number,
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<Replica> {
  const child = spawn(
    process.execPath,
    ['--import', `${REPO_ROOT}test/support/ts-child.loader.mjs`, `${REPO_ROOT}apps/demo/src/main.ts`, ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`replica ${index} did not report its port within ${REPLICA_START_MS} ms:\n${output}`));
    }, REPLICA_START_MS);
    const onData = (chunk: Buffer) => {
      // Kept whole (bounded): tests read the log for what a replica did, e.g. the reports it wrote.
      output = (output + chunk.toString()).slice(-200_000);
      const match = LISTENING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[2]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`replica ${index} exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const end = async (signal: NodeJS.Signals) => {
    if (alive()) child.kill(signal);
    await exited;
  };
  return {
    index,
    port,
    pid: child.pid!,
    baseUrl,
    mcpUrl: new URL(`${baseUrl}/mcp`),
    adminUrl: new URL(`${baseUrl}/admin/mcp`),
    address: `127.0.0.1:${port}`,
    route: env.MCP_SESSION_ROUTE ?? '',
    child,
    output: () => output,
    alive,
    kill9: () => end('SIGKILL'),
    stop: async () => {
      if (!alive()) return;
      // A replica that does not finish its graceful shutdown in time is killed: a test must not hang on it.
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await end('SIGTERM');
      clearTimeout(timer);
    },
  };
}
