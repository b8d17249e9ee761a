import type { ChildProcess } from 'node:child_process';

/** One sample of an instant query's vector. */
export interface PrometheusSample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

/** A running Prometheus (see prometheus-server.mjs). */
export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Its own directory: prometheus.yml and the TSDB. */
  readonly dir: string;
  readonly child: ChildProcess;
  /** The last lines Prometheus logged. */
  log(): string;
  /** An instant query (PromQL) through the HTTP API. */
  query(expression: string): Promise<PrometheusSample[]>;
  /** The scrape targets and their health. */
  targets(): Promise<Array<{ url: string; health: string; lastError: string }>>;
  stop(): Promise<void>;
  /** Stops Prometheus and removes its directory. */
  dispose(): Promise<void>;
}

/** The generated prometheus.yml. */
export function prometheusConfig(options: { targets: readonly string[]; job?: string }): string;
/** Starts Prometheus scraping `targets` (`host:port`) every second, on `port` (default: a free one). */
export function startPrometheus(options: {
  targets: readonly string[];
  job?: string;
  port?: number;
}): Promise<PrometheusServer>;
