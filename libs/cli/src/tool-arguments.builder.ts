import { CliError } from './cli.error.js';

type JsonSchema = Record<string, unknown>;

/**
 * Turns `--json` and `--arg key=value` into the arguments object. A value is typed by the property's schema when
 * the tool declares one (`--arg count=3` sends the number 3, `--arg name=007` the string "007"); without a schema a
 * value that reads as JSON is sent as JSON, anything else as a string. `--arg` wins over `--json` on the same key.
 */
export function buildArguments(
  pairs: readonly [string, string][],
  json: Record<string, unknown> | undefined,
  inputSchema?: JsonSchema,
): Record<string, unknown> {
  const properties = isObject(inputSchema?.properties) ? inputSchema.properties : {};
  const result: Record<string, unknown> = { ...json };
  for (const [key, raw] of pairs) {
    const schema = isObject(properties[key]) ? properties[key] : undefined;
    result[key] = coerce(key, raw, schema);
  }
  return result;
}

/** Prompt arguments are strings on the wire (spec), whatever they look like. */
export function buildPromptArguments(
  pairs: readonly [string, string][],
  json: Record<string, unknown> | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(json ?? {}))
    result[key] = typeof value === 'string' ? value : JSON.stringify(value);
  for (const [key, value] of pairs) result[key] = value;
  return result;
}

function coerce(key: string, raw: string, schema: JsonSchema | undefined): unknown {
  switch (typeOf(schema)) {
    case 'string':
      return raw;
    case 'integer':
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value))
        throw CliError.usage(`--arg ${key} must be a number, got "${raw}"`);
      return value;
    }
    case 'boolean': {
      const value = BOOLEANS[raw.toLowerCase()];
      if (value === undefined) throw CliError.usage(`--arg ${key} must be true or false, got "${raw}"`);
      return value;
    }
    case 'object':
    case 'array':
      try {
        return JSON.parse(raw);
      } catch {
        throw CliError.usage(`--arg ${key} must be JSON, got "${raw}"`);
      }
    default:
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
  }
}

const BOOLEANS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };

/** The first non-null `type` of a property schema (`["string", "null"]` counts as string). */
function typeOf(schema: JsonSchema | undefined): string | undefined {
  const type = schema?.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry): entry is string => typeof entry === 'string' && entry !== 'null');
  return undefined;
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
