import type { JsonObject, JsonValue } from '../protocol/wire.types.js';

/** A JSON Schema (2020-12) object; booleans and anything else are "no form". */
export type Schema = JsonObject;

/** One choice of an enum: its value and what the user sees. */
export interface Choice {
  value: JsonValue;
  label: string;
}

/** What a form control a schema gets: one of the kinds below, or `raw` (JSON text) when no control expresses it. */
export type FieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'choice'
  | 'multi-choice'
  | 'array'
  | 'object'
  | 'raw';

export const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords a form does not express: a schema with one of them is edited as raw JSON. */
const RAW_KEYWORDS = [
  '$ref',
  '$dynamicRef',
  'allOf',
  'anyOf',
  'not',
  'if',
  'prefixItems',
  'patternProperties',
  'dependentSchemas',
];

/** The `type` of a schema, when it names one (a `[type, "null"]` pair counts as the type). */
function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const named = type.filter((entry): entry is string => typeof entry === 'string' && entry !== 'null');
    return named.length === 1 ? named[0] : undefined;
  }
  if (isSchema(schema.properties)) return 'object';
  return undefined;
}

/** The choices of `enum`, or of `oneOf` / `anyOf` made only of `const` entries (titled enums). */
export function choicesOf(schema: Schema): Choice[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => ({ value, label: String(value) }));
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (options && options.length > 0 && options.every((option) => isSchema(option) && 'const' in option)) {
    return (options as Schema[]).map((option) => ({
      value: option.const,
      label: typeof option.title === 'string' ? option.title : String(option.const),
    }));
  }
  if ('const' in schema) return [{ value: schema.const, label: String(schema.const) }];
  return undefined;
}

/** Which control a schema gets. */
export function fieldKindOf(schema: unknown): FieldKind {
  if (!isSchema(schema)) return 'raw';
  if (choicesOf(schema)) return 'choice';
  if (RAW_KEYWORDS.some((keyword) => keyword in schema) || 'oneOf' in schema) return 'raw';
  switch (typeOf(schema)) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'array':
      if (isSchema(schema.items) && choicesOf(schema.items)) return 'multi-choice';
      return isSchema(schema.items) ? 'array' : 'raw';
    case 'object':
      // An object is a form when its fields are named; a map (only additionalProperties) is JSON.
      return isSchema(schema.properties) ? 'object' : 'raw';
    default:
      return 'raw';
  }
}

/** The properties of an object schema, in their declared order, with whether each is required. */
export function propertiesOf(schema: Schema): Array<{ name: string; schema: Schema; required: boolean }> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [],
  );
  return Object.entries(properties).map(([name, property]) => ({
    name,
    schema: isSchema(property) ? property : {},
    required: required.has(name),
  }));
}

/** The value a form starts with: `default` where given, objects filled in from their properties' defaults. */
export function initialValue(schema: unknown): JsonValue | undefined {
  if (!isSchema(schema)) return undefined;
  if ('default' in schema) return schema.default;
  if (fieldKindOf(schema) === 'object') {
    const value: JsonObject = {};
    for (const property of propertiesOf(schema)) {
      const initial = initialValue(property.schema);
      if (initial !== undefined) value[property.name] = initial;
      // A required nested object starts as an object, so that its own fields can be filled in.
      else if (property.required && fieldKindOf(property.schema) === 'object') value[property.name] = {};
    }
    return value;
  }
  return undefined;
}

/** The label of a field: its `title`, else its name. */
export function labelOf(name: string, schema: Schema): string {
  return typeof schema.title === 'string' && schema.title !== '' ? schema.title : name;
}

/** The HTML input type for a string `format`. */
export function inputTypeOf(schema: Schema): 'email' | 'url' | 'date' | 'text' {
  switch (schema.format) {
    case 'email':
      return 'email';
    case 'uri':
    case 'url':
      return 'url';
    case 'date':
      return 'date';
    default:
      return 'text';
  }
}
