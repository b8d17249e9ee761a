import type { Server } from 'node:http';
import { McpRedisConnection } from '../../libs/mcp-redis/src/mcp-redis.connection.js';
import type { RunningApp } from './app.factory.js';

/** Polls `condition` every 50 ms until it resolves true (a rejection counts as false); throws after `timeoutMs`. */
export async function eventually(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until each replica's command client answers PING again after a Redis restart. A test that restarted Redis
 * calls it before the next test or the shutdown goes on.
 */
export async function replicasReconnected(apps: readonly RunningApp[], timeoutMs = 15_000): Promise<void> {
  for (const running of apps) {
    const connection = running.app.get(McpRedisConnection);
    await eventually(() => connection.ping(), timeoutMs, 'the replicas to reconnect to Redis');
  }
}

/**
 * Closes an app. Node 20's fetch (undici) opens a spare, request-less connection after a response body was aborted
 * (a listen stream the client closed), and `server.close()` waits for it (Express ~3 s, Fastify indefinitely): such
 * connections are dropped while the app closes. Close every client first.
 */
export async function closeReplica(running: RunningApp): Promise<void> {
  const server = running.app.getHttpServer() as Server;
  const sweeper = setInterval(() => server.closeAllConnections(), 20);
  try {
    await running.close();
  } finally {
    clearInterval(sweeper);
  }
}
