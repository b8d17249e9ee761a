import { createRequire } from 'node:module';
import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage.js';
import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { JsonSchemaObject } from './schema-input.interface.js';

/** A DTO class, concrete or abstract. */
export type DtoClass = abstract new (...args: any[]) => unknown;

/**
 * class-transformer keeps `@Type(() => Child)` metadata in a storage it only exports from its CommonJS build;
 * it is the instance `class-transformer`'s main entry (and so every DTO's decorators) writes to.
 */
const { defaultMetadataStorage } = createRequire(import.meta.url)('class-transformer/cjs/storage.js') as {
  defaultMetadataStorage: TransformerMetadataStorage;
};

const DEFS_PREFIX = '#/$defs/';
const CONVERTER_OPTIONS = { refPointerPrefix: DEFS_PREFIX, classTransformerMetadataStorage: defaultMetadataStorage };

/** Built-in types a property may be declared as; they never become `$defs`. */
const BUILT_IN_TYPES = new Set<unknown>([String, Number, Boolean, Symbol, BigInt, Object, Array, Date, Map, Set]);

const cache = new WeakMap<DtoClass, JsonSchemaObject>();

function hasValidationMetadata(type: unknown): type is DtoClass {
  return (
    typeof type === 'function' &&
    !BUILT_IN_TYPES.has(type) &&
    getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0
  );
}

/** The DTO classes a class's properties are declared as (`@Type(() => X)` first, else `design:type`). */
function propertyClasses(dto: DtoClass): DtoClass[] {
  const candidates = getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .flatMap(({ propertyName }) => [
      defaultMetadataStorage.findTypeMetadata(dto, propertyName)?.typeFunction(),
      Reflect.getMetadata('design:type', dto.prototype as object, propertyName) as unknown,
    ]);
  return [...new Set(candidates)].filter(hasValidationMetadata);
}

/** Every DTO class reachable from `root` (including `root` only if it is recursive), keyed by `$defs` name. */
function reachableClasses(root: DtoClass): Map<string, DtoClass> {
  const found = new Map<string, DtoClass>();
  const pending = propertyClasses(root);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const known = found.get(next.name);
    if (known === next) continue;
    if (known) {
      throw new Error(`two different nested DTO classes are named "${next.name}"; rename one of them`);
    }
    found.set(next.name, next);
    pending.push(...propertyClasses(next));
  }
  return found;
}

/** Replaces `$ref`s to `$defs` entries that do not exist (e.g. a custom validator on a `Date`) with `{}`. */
function dropDanglingRefs(node: unknown, defs: Record<string, unknown>): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const ref = record['$ref'];
  if (typeof ref === 'string' && ref.startsWith(DEFS_PREFIX) && !(ref.slice(DEFS_PREFIX.length) in defs)) {
    delete record['$ref'];
  }
  Object.values(record).forEach((child) => dropDanglingRefs(child, defs));
}

/**
 * The JSON Schema 2020-12 of a class-validator DTO, built once per class by class-validator-jsonschema.
 * Nested DTOs (`@ValidateNested()` + `@Type(() => Child)`) land in the root's `$defs`, so the schema is
 * self-contained. Throws a plain `Error` if two nested DTO classes share a name.
 *
 * @internal
 */
export function dtoJsonSchema(dto: DtoClass): JsonSchemaObject {
  let schema = cache.get(dto);
  if (!schema) {
    const defs = Object.fromEntries(
      [...reachableClasses(dto)].map(([name, type]) => [name, targetConstructorToSchema(type, CONVERTER_OPTIONS)]),
    );
    schema = structuredClone({
      ...targetConstructorToSchema(dto, CONVERTER_OPTIONS),
      ...(Object.keys(defs).length > 0 && { $defs: defs }),
    }) as JsonSchemaObject;
    dropDanglingRefs(schema, defs);
    cache.set(dto, schema);
  }
  return schema;
}
