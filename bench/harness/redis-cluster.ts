import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type RedisServer, startRedisServer } from '../../test/support/redis-server.js';
import { measureClockOffset } from './clock-offset.js';
import { log } from './progress-log.js';
import { ServerProcess } from './server-process.js';

/**
 * The processes of the scale-out workloads: a redis-server of their own on a free loopback port (the test helper
 * that the cluster tests use), nest-mcp replicas on it or on the in-memory components, and listener swarms. Each
 * process reports its clock offset to the harness, so timestamps taken in different processes can be subtracted.
 */

const SERVERS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'servers');
/** Maps the `nest-mcp` package name to the built library (see servers/package-alias.loader.ts). */
const ALIAS_LOADER = pathToFileURL(join(SERVERS_DIR, 'package-alias.loader.js')).href;

/** A child process and its clock offset (its clock minus the harness's, ms). */
export interface TimedProcess {
  process: ServerProcess;
  offsetMs: number;
}

/** Whether `redis-server` is installed (`.ci/run` installs it), and its version. */
export function redisServerVersion(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) return undefined;
  return /v=(\S+)/.exec(probe.stdout)?.[1] ?? probe.stdout.trim();
}

const redisServers = new Set<RedisServer>();

// However the harness ends (an error, Ctrl-C, process.exit), no redis-server of the bench outlives it.
process.once('exit', () => {
  for (const redis of redisServers) {
    spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(redis.port), 'shutdown', 'nosave'], {
      stdio: 'ignore',
      timeout: 2_000,
    });
    rmSync(redis.dir, { recursive: true, force: true });
  }
});

/** Starts redis-server on a free loopback port, or explains why it cannot. */
export async function startRedis(): Promise<RedisServer> {
  if (!redisServerVersion())
    throw new Error(
      'redis-server is not installed (apt-get install redis-server; .ci/run does it): the redis workload needs it',
    );
  const redis = await startRedisServer();
  redisServers.add(redis);
  log(`  redis-server ${redisServerVersion()} on ${redis.url}`);
  return redis;
}

/** Stops a redis-server of `startRedis` and removes its directory. */
export async function disposeRedis(redis: RedisServer | undefined): Promise<void> {
  if (!redis) return;
  redisServers.delete(redis);
  await redis.dispose();
}

/** Where a replica keeps its state: in memory, or on Redis under a key prefix (replicas sharing it are one cluster). */
export type ReplicaBackend = { kind: 'memory' } | { kind: 'redis'; url: string; keyPrefix: string };

/** Starts one nest-mcp replica (servers/nest-mcp-redis.server.ts) on Express. */
export async function startReplica(label: string, backend: ReplicaBackend): Promise<TimedProcess> {
  const args = [
    '--adapter',
    'express',
    ...(backend.kind === 'redis' ? ['--redis', backend.url, '--prefix', backend.keyPrefix] : []),
  ];
  const server = await ServerProcess.start(label, { script: 'nest-mcp-redis.server.js', args }, [
    '--expose-gc',
    '--import',
    ALIAS_LOADER,
  ]);
  const { offsetMs } = await measureClockOffset(server);
  log(
    `  started ${label} (pid ${server.pid}, port ${server.port}${backend.kind === 'redis' ? `, Redis prefix ${backend.keyPrefix}` : ', in memory'})`,
  );
  return { process: server, offsetMs };
}

/** Starts a listener swarm (harness/listener-swarm.ts). */
export async function startSwarm(label: string): Promise<TimedProcess> {
  const swarm = await ServerProcess.start(label, { script: '../harness/listener-swarm.js', args: [] }, []);
  const { offsetMs } = await measureClockOffset(swarm);
  return { process: swarm, offsetMs };
}

/** Stops every process given (gracefully, then SIGKILL), ignoring those already gone. */
export async function stopAll(processes: Iterable<TimedProcess | undefined>): Promise<void> {
  await Promise.all([...processes].map((entry) => entry?.process.stop()));
}
