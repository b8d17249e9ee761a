import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** The `service.name` of the resource that sent it. */
  service?: string;
}

/**
 * A minimal OTLP/HTTP trace receiver on 127.0.0.1 (what an OpenTelemetry Collector's `otlp` receiver accepts at
 * `/v1/traces`, JSON encoding): keeps every span it is sent, answers `{}` as the protocol asks.
 */
export class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const receiver: OtlpReceiver = new OtlpReceiver(
      createServer((request, response) => {
        let body = '';
        request.setEncoding('utf8');
        request.on('data', (chunk: string) => (body += chunk));
        request.on('end', () => {
          if (request.method === 'POST' && request.url === '/v1/traces') receiver.accept(body);
          response
            .writeHead(request.url === '/v1/traces' ? 200 : 404, { 'content-type': 'application/json' })
            .end('{}');
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get tracesUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
  }

  /** Waits until a span matches `predicate`. */
  async waitFor(predicate: (span: OtlpSpan) => boolean, timeoutMs = 20_000): Promise<OtlpSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching span after ${timeoutMs} ms; received: ${this.spans.map((span) => span.name).join(', ')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(body: string): void {
    const payload = JSON.parse(body) as {
      resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: RawSpan[] }> }>;
    };
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
            status: span.status,
            startTimeUnixNano: String(span.startTimeUnixNano),
            endTimeUnixNano: String(span.endTimeUnixNano),
            ...(service && { service }),
          });
        }
      }
    }
  }
}

interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}
interface RawSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    attributes[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  }
  return attributes;
}
