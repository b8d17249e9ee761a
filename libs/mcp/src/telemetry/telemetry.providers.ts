import type { Provider } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpTelemetry } from './mcp-telemetry.js';
import { loadOtelApi } from './otel-api.loader.js';

/**
 * `McpTelemetry`, built once at startup: `telemetry: false` never loads `@opentelemetry/api`; otherwise the API is
 * loaded if the application installed it (an optional peer dependency).
 */
export const telemetryProviders: Provider[] = [
  {
    provide: McpTelemetry,
    useFactory: async (options: McpResolvedOptions) => {
      if (options.telemetry === false) return McpTelemetry.OFF;
      const api = await loadOtelApi();
      return api ? new McpTelemetry(api, options.telemetry) : McpTelemetry.OFF;
    },
    inject: [McpResolvedOptions],
  },
];
