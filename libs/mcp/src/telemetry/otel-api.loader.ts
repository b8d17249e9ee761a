import type * as OtelApiModule from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as loaded at startup. */
export type OtelApi = typeof OtelApiModule;

/**
 * Loads `@opentelemetry/api`, an optional peer dependency, once at startup: undefined when the application did not
 * install it (then telemetry is off and costs nothing). Loaded with `import()` so that the package is never required
 * to start, and resolved from the application (never bundled: a second copy of the API would not see the SDK the
 * application registered, `@opentelemetry/api`'s global-version rule).
 */
export async function loadOtelApi(): Promise<OtelApi | undefined> {
  try {
    const loaded = (await import('@opentelemetry/api')) as OtelApi & { default?: OtelApi };
    // The package is CommonJS: its named exports come through Node's interop, or on `default`.
    return typeof loaded.trace?.getTracerProvider === 'function' ? loaded : loaded.default;
  } catch {
    return undefined;
  }
}
