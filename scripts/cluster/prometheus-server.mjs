/**
 * A real Prometheus (Debian package `prometheus`, /usr/bin/prometheus) on a free loopback port, with its own config
 * and storage in a temporary directory, scraping the given targets every second: used by `npm run demo:cluster --
 * --otel` and by the telemetry tests. Nothing outside the directory is touched; `dispose()` stops it and removes it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../free-port.mjs';

const BINARY = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';

/** The prometheus.yml of `targets` (`host:port` of each /metrics endpoint), one job, scraped every second. */
export function prometheusConfig({ targets, job = 'nest-mcp' }) {
  const list = targets.map((target) => `'${target}'`).join(', ');
  return [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    `  - job_name: '${job}'`,
    '    metrics_path: /metrics',
    `    static_configs:`,
    `      - targets: [${list}]`,
    '',
  ].join('\n');
}

/** Starts Prometheus scraping `targets`; resolves once its ready endpoint answers. */
export async function startPrometheus({ targets, job, port }) {
  const dir = mkdtempSync(join(tmpdir(), 'nest-mcp-prometheus-'));
  writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig({ targets, job }));
  const listen = port ?? (await freePort());
  const child = spawn(
    BINARY,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${listen}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk) => (log = (log + chunk.toString()).slice(-8000)));
  const url = `http://127.0.0.1:${listen}`;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const failed = new Promise((_, reject) => {
    child.once('error', (error) =>
      reject(new Error(`could not run ${BINARY} (${error.message}): apt-get install prometheus`)),
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`prometheus exited (${code ?? signal}) before it was ready:\n${log}`)),
    );
  });
  failed.catch(() => undefined);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await Promise.race([
      fetch(`${url}/-/ready`).then(
        (response) => response.ok,
        () => false,
      ),
      failed,
    ]);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prometheus not ready after 30 s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  return {
    url,
    port: listen,
    dir,
    child,
    log: () => log,
    /** An instant query through the HTTP API: the `data.result` vector. */
    async query(expression) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
      const body = await response.json();
      if (body.status !== 'success') throw new Error(`query ${expression} failed: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    /** The scrape targets with their health (`up`, `down`, `unknown`). */
    async targets() {
      const response = await fetch(`${url}/api/v1/targets`);
      const body = await response.json();
      return body.data.activeTargets.map((target) => ({
        url: target.scrapeUrl,
        health: target.health,
        lastError: target.lastError,
      }));
    },
    stop,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
