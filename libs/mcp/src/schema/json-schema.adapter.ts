import { Ajv, type ErrorObject, type Options as AjvOptions } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { CompiledSchema, CompileSchemaOptions } from './compiled-schema.interface.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import type { JsonSchemaObject } from './schema-input.interface.js';
import { appendPointer } from './schema-issues.util.js';
import { assertSchemaShape } from './schema-shape.guard.js';
import type { SchemaIssue, ValidationOutcome } from './validation-outcome.interface.js';

/** `$schema` URIs (without a trailing `#`) of the supported dialects. */
const DIALECTS = {
  'https://json-schema.org/draft/2020-12/schema': () => Ajv2020,
  'http://json-schema.org/draft-07/schema': () => Ajv,
} as const;

type DialectUri = keyof typeof DIALECTS;
type AjvInstance = Ajv | Ajv2020;

/**
 * Shared Ajv options. `addUsedSchema: false` keeps compiled schemas out of the instance registry, so two tools
 * may declare different schemas with the same `$id`; with no `loadSchema`, a remote `$ref` fails to compile.
 * Defaults are not applied (`useDefaults` off): the validated value is returned untouched.
 */
const AJV_OPTIONS: AjvOptions = { allErrors: true, strict: false, addUsedSchema: false };

/** One Ajv instance per dialect, created on first use. */
const instances = new Map<DialectUri, AjvInstance>();

function ajvFor(dialect: DialectUri): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    const AjvClass = DIALECTS[dialect]();
    ajv = new AjvClass(AJV_OPTIONS);
    addFormats.default(ajv);
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

/**
 * Compiles a raw JSON Schema (2020-12, or draft-07 when `$schema` says so) with Ajv. The schema is put on the
 * wire as given; validation returns the value unchanged.
 *
 * @throws SchemaDefinitionError for an unsupported dialect, a malformed schema or an unresolvable `$ref`.
 * @internal
 */
export function compileJsonSchema<T>(schema: JsonSchemaObject, options: CompileSchemaOptions): CompiledSchema<T> {
  const ajv = ajvFor(dialectOf(schema, options));
  assertSchemaShape(schema, options);
  const check = SchemaDefinitionError.guard(options, () => ajv.compile(schema));
  return {
    jsonSchema: schema,
    validate(value: unknown): ValidationOutcome<T> {
      return check(value)
        ? { valid: true, value: value as T }
        : { valid: false, issues: (check.errors ?? []).map(toIssue) };
    },
  };
}
