import type { CompileSchemaOptions } from './compiled-schema.interface.js';

/**
 * A schema given to the library cannot be used (unsupported dialect, malformed, unresolvable `$ref`, too deep…).
 * Thrown by `compileSchema` at bootstrap, never while serving requests.
 */
export class SchemaDefinitionError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SchemaDefinitionError';
  }

  /** @internal Builds the error for a schema of `options.owner`, e.g. `Invalid input schema for tool 'add': …`. */
  static of(options: CompileSchemaOptions, reason: string, cause?: unknown): SchemaDefinitionError {
    return new SchemaDefinitionError(
      `Invalid ${options.role} schema for ${options.owner}: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
  }

  /**
   * @internal Runs `build` (a third-party schema compiler or converter), turning whatever it throws into a
   * {@link SchemaDefinitionError} whose reason is `prefix` followed by the original message.
   */
  static guard<R>(options: CompileSchemaOptions, build: () => R, prefix = ''): R {
    try {
      return build();
    } catch (error) {
      if (error instanceof SchemaDefinitionError) throw error;
      throw SchemaDefinitionError.of(options, prefix + (error instanceof Error ? error.message : String(error)), error);
    }
  }
}
