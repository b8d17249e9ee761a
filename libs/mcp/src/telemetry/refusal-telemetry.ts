import type { Attributes, Context, Link, Tracer } from '@opentelemetry/api';
import type { McpResolvedTelemetryOptions } from '../config/resolved-options.js';
import { isServerError } from './error-classification.js';
import type { McpInstruments } from './mcp-instruments.js';
import { META_GETTER } from './meta.getter.js';
import type { OtelApi } from './otel-api.loader.js';
import * as semconv from './semconv.js';
import type { TelemetryRefusal } from './telemetry-refusal.interface.js';

/** Longer ids are left out of spans, as on admitted calls. */
const MAX_ID_LENGTH = 128;

/**
 * Records a request refused at the HTTP edge, before the runner (docs/observability.md, "Refused requests"): a SERVER
 * span from its receipt to the refusal and one point of `mcp.server.operation.duration`, classified like any answer
 * (`error.type` and ERROR only for the server's own failures: a 401, 413 or header mismatch is the caller's),
 * with `http.response.status_code` saying which refusal it was. Called only when a tracer or a meter records.
 */
export function recordRefusal(
  api: OtelApi,
  settings: McpResolvedTelemetryOptions,
  refusal: TelemetryRefusal,
  tracer: Tracer | undefined,
  instruments: McpInstruments | undefined,
): void {
  const { error, incoming, request } = refusal;
  const method = request?.implemented ? request.method : semconv.OTHER;
  const statusCode = String(error.code);
  const failed = isServerError(error.code, settings.clientErrorCodes);
  const common: Attributes = {
    [semconv.ATTR_MCP_METHOD_NAME]: method,
    [semconv.ATTR_RPC_RESPONSE_STATUS_CODE]: statusCode,
    [semconv.ATTR_HTTP_RESPONSE_STATUS_CODE]: error.httpStatus,
    [semconv.ATTR_NETWORK_TRANSPORT]: 'tcp',
    [semconv.ATTR_NETWORK_PROTOCOL_NAME]: 'http',
    ...(incoming.httpVersion && { [semconv.ATTR_NETWORK_PROTOCOL_VERSION]: incoming.httpVersion }),
    ...(failed && { [semconv.ATTR_ERROR_TYPE]: statusCode }),
  };
  const startTime = refusal.receivedAt ?? performance.now();
  if (tracer) {
    const { parent, links } = parentAndLinks(api, request?.meta);
    const span = tracer.startSpan(
      method,
      { kind: api.SpanKind.SERVER, links, startTime, attributes: { [semconv.ATTR_MCP_METHOD_NAME]: method } },
      parent,
    );
    if (span.isRecording()) {
      const attributes: Attributes = { ...common, [semconv.ATTR_NEST_MCP_OUTCOME]: 'refused' };
      const id = request?.id;
      if (id !== undefined && id !== null && String(id).length <= MAX_ID_LENGTH)
        attributes[semconv.ATTR_JSONRPC_REQUEST_ID] = String(id);
      const address = incoming.socket?.remoteAddress;
      if (address !== undefined) {
        attributes[semconv.ATTR_CLIENT_ADDRESS] = address;
        const port = incoming.socket.remotePort;
        if (port !== undefined) attributes[semconv.ATTR_CLIENT_PORT] = port;
      }
      span.setAttributes(attributes);
      if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
  }
  instruments?.operationDuration.record((performance.now() - startTime) / 1000, common);
}

/**
 * As for admitted calls: the context the configured propagators read from `_meta` is the parent and the ambient span
 * a link; without one, the ambient span is the parent.
 */
function parentAndLinks(api: OtelApi, meta: unknown): { parent: Context; links: Link[] } {
  const ambient = api.context.active();
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return { parent: ambient, links: [] };
  const fromMeta = api.propagation.extract(api.ROOT_CONTEXT, meta as Record<string, unknown>, META_GETTER);
  const remote = api.trace.getSpanContext(fromMeta);
  if (!remote || !api.isSpanContextValid(remote)) return { parent: ambient, links: [] };
  const ambientSpan = api.trace.getSpanContext(ambient);
  return {
    parent: fromMeta,
    links: ambientSpan && api.isSpanContextValid(ambientSpan) ? [{ context: ambientSpan }] : [],
  };
}
