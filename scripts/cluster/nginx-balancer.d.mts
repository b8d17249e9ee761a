import type { ChildProcess } from 'node:child_process';

/** A running nginx balancer (see nginx-balancer.mjs). */
export interface NginxBalancer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Its own directory: config, pid, logs, temp paths. */
  readonly dir: string;
  readonly pid: number | undefined;
  readonly child: ChildProcess;
  /** The access log: one line per request, with `upstream=<the replica's address>`. */
  accessLog(): string;
  /** Ends nginx (SIGTERM) and waits until it exited. */
  stop(): Promise<void>;
  /** Stops nginx and removes its directory. */
  dispose(): Promise<void>;
}

export { freePort } from '../free-port.mjs';
/** The generated nginx.conf. */
export function nginxConfig(options: {
  port: number;
  upstreams: readonly number[];
  dir: string;
  sessionRoutes?: readonly string[];
}): string;
/**
 * Starts nginx in front of `upstreams` on `port` (default: a free one); with `sessionRoutes` (each upstream's
 * `sessionRoute`), 2025-11-25 sessions stick to the replica whose route starts their id.
 */
export function startNginx(options: {
  upstreams: readonly number[];
  port?: number;
  sessionRoutes?: readonly string[];
}): Promise<NginxBalancer>;
/** Resolves once 127.0.0.1:`port` accepts connections. */
export function waitForPort(port: number, timeoutMs: number): Promise<void>;
