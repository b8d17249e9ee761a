import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, for paths handed to child processes. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A fixture server in its own process, compiled on the fly, that talks to the test over IPC. */
export interface ForkedServer {
  readonly child: ChildProcess;
  /** The MCP endpoint, once the fixture reported its port. */
  readonly url: URL;
  /** Sends `command` and resolves with the value of the first message that carries `key`. */
  ask<T>(command: string, key: string): Promise<T>;
  kill(): void;
}

/**
 * Forks a fixture entry (a `*-main.fixture.ts` that sends `{ ready: port }` once listening) with `--expose-gc`,
 * through the SWC loader (`ts-child.loader.mjs`), so a memory test measures a real server process and not itself.
 */
export async function forkFixtureServer(entry: string, args: readonly string[]): Promise<ForkedServer> {
  const child = fork(`${REPO_ROOT}${entry}`, [...args], {
    cwd: REPO_ROOT,
    execArgv: ['--import', `${REPO_ROOT}test/support/ts-child.loader.mjs`, '--expose-gc', '--max-old-space-size=1536'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: Record<string, T>) => {
        if (!(key in message)) return;
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve(message[key]);
      };
      const onExit = (code: number | null) => reject(new Error(`server exited (${code}): ${stderr}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const port = await next<number>('ready');
  return {
    child,
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    ask: <T>(command: string, key: string) => {
      const answer = next<T>(key);
      child.send(command);
      return answer;
    },
    kill: () => {
      child.kill('SIGKILL');
    },
  };
}
