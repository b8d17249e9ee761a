import 'reflect-metadata';
import { Injectable, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpEvent, McpEvents, McpModule, McpPublisher, McpResource } from '../../libs/mcp/src/index.js';
import { BenchTools } from './nest-mcp/bench.tools.js';
import { BENCH_EVENT, BENCH_PRINCIPAL, BENCH_TICKS_URI } from './shared/events-bench.constants.js';
import { preciseNow } from './shared/precise-clock.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * The `events` workload's server (issue #26): nest-mcp with one event type, `bench.tick` (poll, push, webhook; every
 * tick delivered unchanged), the caller always the principal `bench`, loopback webhooks allowed, stream queues large
 * enough for a burst:
 *
 *   node dist/bench/bench/servers/nest-mcp-events.server.js --adapter express|fastify
 *
 * IPC commands besides the runtime's: `clock` (this process's `preciseNow`, for the harness's clock offset) and
 * `emit` (`{ kind: 'event' | 'listen', count }`: `count` ticks one after the other — `McpEvents.emit` of `bench.tick`
 * with `{ seq, sentAt }`, or `McpPublisher.resourceUpdated` of `bench://ticks/<seq>/<sentAt>` for the listen
 * baseline; answers when the last was emitted).
 */
@Injectable()
class TickEvents {
  @McpEvent({
    name: BENCH_EVENT,
    description: 'A tick of the events bench',
    replay: { windowMs: 3_600_000, maxEvents: 200_000 },
  })
  tick(): boolean {
    return true;
  }
}

/** One resource, so that the server honours `resourceSubscriptions` (the listen baseline subscribes to it). */
@Injectable()
class TickResources {
  @McpResource({
    uri: BENCH_TICKS_URI,
    name: 'ticks',
    description: 'The bench ticks; updates are published under it',
    mimeType: 'text/plain',
  })
  ticks(): string {
    return 'bench ticks';
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      name: 'nest-mcp-events-bench',
      version: '1.0.0',
      principal: () => BENCH_PRINCIPAL,
      // A burst is emitted faster than one reader drains it: room for a whole burst, so that a stream measures
      // delivery instead of being closed as a slow reader (the default 128 frames protect a server from those).
      streaming: { maxQueuedFrames: 100_000, maxQueuedBytes: 64 * 1024 * 1024 },
      events: { maxPollEvents: 1_000, webhooks: { allowInsecureLoopback: true, maxPendingPerSubscription: 100_000 } },
    }),
  ],
  providers: [BenchTools, TickEvents, TickResources],
})
class NestMcpEventsBenchModule {}

async function createApp(adapter: AdapterName): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(NestMcpEventsBenchModule, options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(NestMcpEventsBenchModule, new FastifyAdapter(), options);
}

let sequence = 0;

async function main(): Promise<void> {
  const args = parseServerArgs();
  const app = await createApp(args.adapter);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  const events = app.get(McpEvents);
  const publisher = app.get(McpPublisher, { strict: false });
  announce({
    name: `nest-mcp events (${args.adapter})`,
    port: address.port,
    close: () => app.close(),
    commands: {
      clock: () => preciseNow(),
      emit: async (raw) => {
        const { kind, count } = raw as { kind: 'event' | 'listen'; count: number };
        const startedAt = preciseNow();
        for (let index = 0; index < count; index++) {
          const seq = ++sequence;
          if (kind === 'event')
            await events.emit(BENCH_EVENT, { seq, sentAt: preciseNow() }, { eventId: `tick-${seq}` });
          else await publisher.resourceUpdated(`${BENCH_TICKS_URI}/${seq}/${preciseNow()}`);
        }
        return { startedAt, endedAt: preciseNow() };
      },
    },
  });
}

runMain(main);
