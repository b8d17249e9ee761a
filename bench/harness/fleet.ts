import { log } from './progress-log.js';
import { ServerProcess } from './server-process.js';
import { SERVERS, type ServerId, type ServerSpec } from './servers.js';
import { postJson, streamCall } from './http-client.js';
import { toolCall } from './wire.js';

/** A set of running servers, one child process each. */
export class Fleet {
  readonly running = new Map<ServerId, ServerProcess>();

  /** Starts the servers side by side (boot times are measured by the bootstrap workload, not here). */
  static async start(ids: readonly ServerId[], extraArgs: string[] = []): Promise<Fleet> {
    const fleet = new Fleet();
    const outcomes = await Promise.allSettled(
      ids.map(async (id) => {
        const spec = SERVERS[id];
        const server = await ServerProcess.start(spec.label, {
          script: spec.launch.script,
          args: [...spec.launch.args, ...extraArgs],
        });
        fleet.running.set(id, server);
        log(`  started ${spec.label} (pid ${server.pid}, port ${server.port})`);
      }),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) {
      await fleet.stop();
      throw failed.reason;
    }
    return fleet;
  }

  get(id: ServerId): ServerProcess {
    const server = this.running.get(id);
    if (!server) throw new Error(`${id} is not running`);
    return server;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.running.values()].map((server) => server.stop()));
    this.running.clear();
  }
}

interface CallResult {
  result?: { resultType?: string; content?: { text?: string }[] };
  error?: unknown;
}

/** Checks that `echo` answers its text, so that no workload measures error responses. */
export async function verifyEcho(spec: ServerSpec, server: ServerProcess): Promise<void> {
  const answer = await postJson(server.url(spec.echoPath), toolCall(1, 'echo', { text: 'hello' }));
  const body = answer.json as CallResult | undefined;
  if (answer.status !== 200 || body?.result?.content?.[0]?.text !== 'hello') {
    throw new Error(`${spec.label}: echo answered ${answer.status} ${answer.text.slice(0, 300)}`);
  }
}

/** Checks that `count` streams n progress frames then its result. */
export async function verifyCount(spec: ServerSpec, server: ServerProcess, n = 5): Promise<void> {
  const answer = await streamCall(server.url(spec.streamPath), toolCall(2, 'count', { n }, { progressToken: 'bench' }));
  const body = answer.final as CallResult | undefined;
  if (answer.status !== 200 || answer.notifications !== n || body?.result?.content?.[0]?.text !== `counted ${n}`) {
    throw new Error(
      `${spec.label}: count(${n}) answered ${answer.status} with ${answer.notifications} notifications, final ${JSON.stringify(body)?.slice(0, 300)}`,
    );
  }
}
