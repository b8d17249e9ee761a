import type { CompileSchemaOptions } from './compiled-schema.interface.js';
import { SchemaDefinitionError } from './schema-definition.error.js';
import { appendPointer } from './schema-issues.util.js';
import type { JsonSchemaObject } from './schema-input.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';

/**
 * Deepest sub-schema nesting accepted at bootstrap, to bound validation cost (spec 2026-07-28: basic/index,
 * "Composition-Keyword Resource Use").
 */
export const MAX_SCHEMA_DEPTH = 64;

/** Keywords whose value is a map of sub-schemas: the map itself is not a nesting level. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * Throws unless `schema` nests at most {@link MAX_SCHEMA_DEPTH} levels. The root is level 1 and every nested
 * object one more; keyword maps (`properties`, `$defs`…) and keyword arrays (`allOf`, `prefixItems`…) are
 * transparent, so `{ properties: { a: { items: {} } } }` is 3 levels. A cyclic object also fails here.
 */
function assertDepth(node: unknown, level: number, pointer: string, options: CompileSchemaOptions): void {
  if (typeof node !== 'object' || node === null) return;
  if (level > MAX_SCHEMA_DEPTH) {
    throw SchemaDefinitionError.of(options, `nested deeper than ${MAX_SCHEMA_DEPTH} levels (at "${pointer}")`);
  }
  if (Array.isArray(node)) {
    node.forEach((item, index) => assertDepth(item, level + 1, appendPointer(pointer, index), options));
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    const at = appendPointer(pointer, key);
    if (SCHEMA_MAP_KEYWORDS.has(key) && isJsonObject(value)) {
      for (const [name, sub] of Object.entries(value)) assertDepth(sub, level + 1, appendPointer(at, name), options);
    } else {
      assertDepth(value, Array.isArray(value) ? level : level + 1, at, options);
    }
  }
}

/**
 * Checks the rules every wire schema obeys, whatever its source: bounded depth and, for `input`, an object root.
 *
 * @internal
 */
export function assertSchemaShape(schema: JsonSchemaObject, options: CompileSchemaOptions): void {
  assertDepth(schema, 1, '', options);
  if (options.role === 'input' && schema['type'] !== 'object') {
    throw SchemaDefinitionError.of(
      options,
      `the root must be an object schema (type: "object"), got type ${JSON.stringify(schema['type']) ?? 'undefined'}`,
    );
  }
}
