import { Logger } from '@nestjs/common';
import { Ajv, type ErrorObject, type Logger as AjvLogger, type Options as AjvOptions } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { JsonSchemaObject } from './schema-input.interface.js';
import { appendPointer, keepIssues } from './schema-issues.util.js';
import { assertSchemaShape } from './schema-shape.guard.js';
import type { SchemaIssue, ValidationOutcome } from './validation-outcome.interface.js';

/** `$schema` URIs (without a trailing `#`) of the supported dialects. */
const DIALECTS = {
  'https://json-schema.org/draft/2020-12/schema': () => Ajv2020,
  'http://json-schema.org/draft-07/schema': () => Ajv,
} as const;

type DialectUri = keyof typeof DIALECTS;
type AjvInstance = Ajv | Ajv2020;

const logger = new Logger('McpSchema');

/** The schema being compiled, so that Ajv's compile-time warnings name it, and what was already said about it. */
let compiling: { options: CompileSchemaOptions; said: Set<string> } | undefined;

/** Ajv's warnings (strict mode) go to a Nest logger, naming the schema's owner, each once per schema. */
function ajvLog(level: 'log' | 'warn' | 'error'): (...args: unknown[]) => void {
  return (...args) => {
    const text = args.map(String).join(' ');
    if (!compiling) return logger[level](text);
    if (compiling.said.has(text)) return;
    compiling.said.add(text);
    logger[level](`Schema of ${compiling.options.owner} (${compiling.options.role}): ${text}`);
  };
}

const AJV_LOGGER: AjvLogger = { log: ajvLog('log'), warn: ajvLog('warn'), error: ajvLog('error') };

/**
 * Shared Ajv options.
 *
 * - `allErrors: false`: validation stops at the first failure. Arguments are untrusted, and collecting every error
 *   lets one request make Ajv build an error object per extra key or per array item (300,000 extra keys, a million
 *   wrong items in 4 MiB).
 * - `strict: 'log'`: a misspelled or unknown keyword (`minimun`), which Ajv would otherwise silently ignore, is
 *   logged once at bootstrap. Not reported, being valid and common JSON Schema: union types
 *   (`type: ["string", "null"]`) and a `required` name declared by a parent's `properties` (inside `allOf`,
 *   `anyOf`, `then`: `strictRequired` off).
 * - `addUsedSchema: false` keeps compiled schemas out of the instance registry, so two tools may declare different
 *   schemas with the same `$id`; with no `loadSchema`, a remote `$ref` fails to compile.
 * - Defaults are not applied (`useDefaults` off): the validated value is returned untouched.
 */
const AJV_OPTIONS: AjvOptions = {
  allErrors: false,
  strict: 'log',
  strictRequired: false,
  allowUnionTypes: true,
  addUsedSchema: false,
  logger: AJV_LOGGER,
};

/**
 * Keywords strict mode must not report: MCP's own annotations, `x-mcp-header` (a tool argument mirrored into a
 * header) and `enumNames` (display names of an elicitation enum, superseded by titled `oneOf`); and 2020-12's
 * `$anchor`, which Ajv resolves but does not register as a keyword.
 */
const KNOWN_ANNOTATIONS: Readonly<Record<DialectUri, readonly string[]>> = {
  'https://json-schema.org/draft/2020-12/schema': ['x-mcp-header', 'enumNames', '$anchor'],
  'http://json-schema.org/draft-07/schema': ['x-mcp-header', 'enumNames'],
};

/** One Ajv instance per dialect, created on first use. */
const instances = new Map<DialectUri, AjvInstance>();

function ajvFor(dialect: DialectUri): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    const AjvClass = DIALECTS[dialect]();
    ajv = new AjvClass(AJV_OPTIONS);
    addFormats.default(ajv);
    ajv.addVocabulary([...KNOWN_ANNOTATIONS[dialect]]);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The dialect declared by `$schema` (absent means 2020-12, the MCP default). */
function dialectOf(schema: JsonSchemaObject, options: CompileSchemaOptions): DialectUri {
  const declared = schema['$schema'];
  if (declared === undefined) return 'https://json-schema.org/draft/2020-12/schema';
  const uri = typeof declared === 'string' ? declared.replace(/#$/, '') : undefined;
  if (uri !== undefined && uri in DIALECTS) return uri as DialectUri;
  throw SchemaDefinitionError.of(
    options,
    `unsupported dialect ${JSON.stringify(declared)}; use JSON Schema 2020-12 (the default) or draft-07`,
  );
}

/** Maps an Ajv error to an issue; `required` and extra-property errors point at the property itself. */
function toIssue({ keyword, instancePath, params, message }: ErrorObject): SchemaIssue {
  switch (keyword) {
    case 'required':
      return { path: appendPointer(instancePath, params['missingProperty']), message: 'is required' };
    case 'additionalProperties':
      return { path: appendPointer(instancePath, params['additionalProperty']), message: 'is not allowed' };
    case 'unevaluatedProperties':
      return { path: appendPointer(instancePath, params['unevaluatedProperty']), message: 'is not allowed' };
    default:
      return { path: instancePath, message: message ?? `must pass "${keyword}"` };
  }
}

/** Ajv's compile error for a `format` it does not know (thrown in strict mode). */
const UNKNOWN_FORMAT = /^unknown format "(.*)" ignored in schema at path/;

/**
 * Compiles with Ajv. A format Ajv does not know is, as JSON Schema 2020-12 says, an annotation: it is logged once
 * (naming the first schema that uses it), then accepted unchecked on this instance, and the compile retried.
 */
function compileWith(
  ajv: AjvInstance,
  schema: JsonSchemaObject,
  options: CompileSchemaOptions,
): ReturnType<AjvInstance['compile']> {
  for (;;) {
    try {
      return ajv.compile(schema);
    } catch (error) {
      const format = error instanceof Error ? UNKNOWN_FORMAT.exec(error.message)?.[1] : undefined;
      if (format === undefined || ajv.formats[format] !== undefined) throw error;
      logger.warn(
        `Schema of ${options.owner} (${options.role}): unknown format "${format}" is not checked (ajv-formats does not define it)`,
      );
      ajv.addFormat(format, true);
    }
  }
}

/**
 * Compiles a raw JSON Schema (2020-12, or draft-07 when `$schema` says so) with Ajv. The schema is put on the
 * wire as given; validation returns the value unchanged, or the first failure (a failed `anyOf` / `oneOf` also
 * reports its branches, at most `MAX_SCHEMA_ISSUES` issues in all). Unknown keywords and formats are logged, not
 * fatal.
 *
 * @throws SchemaDefinitionError for an unsupported dialect, a malformed schema or an unresolvable `$ref`.
 * @internal
 */
export function compileJsonSchema<T>(schema: JsonSchemaObject, options: CompileSchemaOptions): CompiledSchema<T> {
  const ajv = ajvFor(dialectOf(schema, options));
  assertSchemaShape(schema, options);
  compiling = { options, said: new Set() };
  let check: ReturnType<AjvInstance['compile']>;
  try {
    check = SchemaDefinitionError.guard(options, () => compileWith(ajv, schema, options));
  } finally {
    compiling = undefined;
  }
  return {
    jsonSchema: schema,
    validate(value: unknown): ValidationOutcome<T> {
      return check(value) ? { valid: true, value: value as T } : keepIssues(check.errors ?? [], toIssue);
    },
  };
}
