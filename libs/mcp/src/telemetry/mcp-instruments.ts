import type { Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';
import {
  MCP_DURATION_BUCKETS,
  METRIC_ADMISSION_REFUSALS,
  METRIC_CALLS_IN_FLIGHT,
  METRIC_EVENT_DELIVERIES,
  METRIC_EVENT_DELIVERY_RETRIES,
  METRIC_LISTEN_STREAMS,
  METRIC_MCP_SERVER_OPERATION_DURATION,
  METRIC_MCP_SERVER_SESSION_DURATION,
  METRIC_SSE_UPGRADES,
  METRIC_STREAM_COALESCED,
  METRIC_STREAM_DROPPED,
  METRIC_TASK_DURATION,
  METRIC_TASKS,
} from './semconv.js';

/**
 * Every instrument nest-mcp records, made from one meter. Built once per meter provider (`McpTelemetry` builds a new
 * set only when the registered provider changes), never per call.
 */
export class McpInstruments {
  /** `mcp.server.operation.duration`: receipt of a request until its answer, in seconds. */
  readonly operationDuration: Histogram;
  /** `mcp.server.session.duration`: a 2025-11-25 session's lifetime, in seconds. */
  readonly sessionDuration: Histogram;
  readonly callsInFlight: UpDownCounter;
  readonly admissionRefusals: Counter;
  readonly sseUpgrades: Counter;
  readonly streamCoalesced: Counter;
  readonly streamDropped: Counter;
  readonly listenStreams: UpDownCounter;
  readonly tasks: Counter;
  readonly taskDuration: Histogram;
  readonly eventDeliveries: Counter;
  readonly eventDeliveryRetries: Counter;

  constructor(readonly meter: Meter) {
    const seconds = { unit: 's', advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] } };
    this.operationDuration = meter.createHistogram(METRIC_MCP_SERVER_OPERATION_DURATION, {
      ...seconds,
      description:
        'MCP request or notification duration as observed on the receiver, from receipt until the answer is sent',
    });
    this.sessionDuration = meter.createHistogram(METRIC_MCP_SERVER_SESSION_DURATION, {
      ...seconds,
      description: 'The duration of an MCP session (2025-11-25) as observed on the server',
    });
    this.callsInFlight = meter.createUpDownCounter(METRIC_CALLS_IN_FLIGHT, {
      unit: '{call}',
      description: 'Requests running now (listen streams excepted), by method',
    });
    this.admissionRefusals = meter.createCounter(METRIC_ADMISSION_REFUSALS, {
      unit: '{call}',
      description: 'Requests refused by the calls-in-flight caps (429/503), by reason',
    });
    this.sseUpgrades = meter.createCounter(METRIC_SSE_UPGRADES, {
      unit: '{response}',
      description: 'HTTP responses that became an SSE stream because a notification came before the result',
    });
    this.streamCoalesced = meter.createCounter(METRIC_STREAM_COALESCED, {
      unit: '{message}',
      description: 'Streamed notifications replaced by a newer one of the same kind while the client read slowly',
    });
    this.streamDropped = meter.createCounter(METRIC_STREAM_DROPPED, {
      unit: '{message}',
      description:
        'Streamed notifications lost because their client read slowly: dropped at the queue bound (queue_full), or the one that closed the stream (disconnect)',
    });
    this.listenStreams = meter.createUpDownCounter(METRIC_LISTEN_STREAMS, {
      unit: '{stream}',
      description: 'Open subscriptions/listen streams',
    });
    this.tasks = meter.createCounter(METRIC_TASKS, {
      unit: '{task}',
      description: 'Task rounds ended, by the status they left the task in',
    });
    this.taskDuration = meter.createHistogram(METRIC_TASK_DURATION, {
      ...seconds,
      description: 'Duration of one round of a task, in seconds',
    });
    this.eventDeliveries = meter.createCounter(METRIC_EVENT_DELIVERIES, {
      unit: '{delivery}',
      description: 'Webhook deliveries of events, by outcome',
    });
    this.eventDeliveryRetries = meter.createCounter(METRIC_EVENT_DELIVERY_RETRIES, {
      unit: '{delivery}',
      description: 'Webhook delivery attempts that will be retried',
    });
  }
}
