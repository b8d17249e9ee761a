import { compileSchema, type CompiledSchema } from '../schema/index.js';

/** One field of an elicitation form: a primitive JSON Schema the client can render. */
export interface FormField<T, Optional extends boolean = false> {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly isOptional: Optional;
  /** Type carrier for inference only; never set. */
  readonly __type?: T;
  /** The same field, not required. */
  optional(): FormField<T, true>;
}

type Shape = Record<string, FormField<unknown, boolean>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends FormField<unknown, true> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = Exclude<keyof S, RequiredKeys<S>>;
type FieldType<F> = F extends FormField<infer T, boolean> ? T : never;

/** The answer content a form yields, inferred from its fields. */
export type InferForm<S extends Shape> = { [K in RequiredKeys<S>]: FieldType<S[K]> } & {
  [K in OptionalKeys<S>]?: FieldType<S[K]>;
};

/**
 * A flat elicitation form (the restricted JSON Schema of spec 2026-07-28: client/elicitation, "Requested Schema") and
 * its validator.
 */
export class FormSchema<T> {
  private compiled?: CompiledSchema;
  /** Type carrier for inference only; never set. */
  declare readonly __type?: T;

  /** @internal A form of this restricted JSON Schema (built by `McpForm.object`). */
  static of<T>(requestedSchema: Readonly<Record<string, unknown>>): FormSchema<T> {
    return new FormSchema<T>(requestedSchema);
  }

  /** Forms are built with `McpForm.object`. */
  private constructor(readonly requestedSchema: Readonly<Record<string, unknown>>) {}

  /** Validates answer content; the answer is untrusted input. */
  validate(content: unknown): boolean {
    this.compiled ??= compileSchema(this.requestedSchema as Record<string, unknown>, {
      role: 'input',
      owner: 'elicitation form',
    });
    const outcome = this.compiled.validate(content);
    return !(outcome instanceof Promise) && outcome.valid;
  }
}

interface Common<T> {
  title?: string;
  description?: string;
  default?: T;
}

function field<T>(schema: Record<string, unknown>, isOptional = false): FormField<T, any> {
  const clean = Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));
  return {
    schema: clean,
    isOptional,
    optional: () => field<T>(clean, true),
  };
}

/** A choice with a display title. */
export interface TitledOption {
  const: string;
  title: string;
}

const isTitled = (values: readonly (string | TitledOption)[]): values is readonly TitledOption[] =>
  values.length > 0 && typeof values[0] === 'object';

/**
 * Builds the flat forms that elicitation may ask for: strings (with formats), numbers, integers, booleans, single
 * and multiple choice (titled or not), each with a title, a description and a default.
 *
 * @example
 * ```ts
 * const form = McpForm.object({
 *   confirm: McpForm.boolean({ title: 'Really delete?', default: false }),
 *   reason: McpForm.string({ maxLength: 200 }).optional(),
 * });
 * ```
 */
export const McpForm = {
  string(
    options: Common<string> & {
      minLength?: number;
      maxLength?: number;
      format?: 'email' | 'uri' | 'date' | 'date-time';
    } = {},
  ): FormField<string> {
    return field({ type: 'string', ...options });
  },
  number(options: Common<number> & { minimum?: number; maximum?: number } = {}): FormField<number> {
    return field({ type: 'number', ...options });
  },
  integer(options: Common<number> & { minimum?: number; maximum?: number } = {}): FormField<number> {
    return field({ type: 'integer', ...options });
  },
  boolean(options: Common<boolean> = {}): FormField<boolean> {
    return field({ type: 'boolean', ...options });
  },
  /** One choice among strings, or among `{ const, title }` options (rendered with titles). */
  enum<V extends string>(
    values: readonly (V | (TitledOption & { const: V }))[],
    options: Common<V> = {},
  ): FormField<V> {
    if (values.length === 0) throw new TypeError('McpForm.enum needs at least one value');
    return isTitled(values as readonly (string | TitledOption)[])
      ? field({ type: 'string', oneOf: values, ...options })
      : field({ type: 'string', enum: values, ...options });
  },
  /** Several choices among strings, or among `{ const, title }` options. */
  multiEnum<V extends string>(
    values: readonly (V | (TitledOption & { const: V }))[],
    options: Common<V[]> & { minItems?: number; maxItems?: number } = {},
  ): FormField<V[]> {
    if (values.length === 0) throw new TypeError('McpForm.multiEnum needs at least one value');
    const items = isTitled(values as readonly (string | TitledOption)[])
      ? { anyOf: values }
      : { type: 'string', enum: values };
    return field({ type: 'array', items, ...options });
  },
  /**
   * One choice with display names in the superseded `enumNames` form, for clients that predate titled `oneOf`.
   * Prefer `enum` with `{ const, title }` options.
   */
  legacyTitledEnum<V extends string>(
    values: readonly V[],
    names: readonly string[],
    options: Common<V> = {},
  ): FormField<V> {
    if (values.length === 0 || values.length !== names.length) {
      throw new TypeError('McpForm.legacyTitledEnum needs as many names as values');
    }
    return field({ type: 'string', enum: values, enumNames: names, ...options });
  },
  /** The form itself: the fields by name; those not marked `.optional()` are required. */
  object<S extends Shape>(shape: S): FormSchema<InferForm<S>> {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const [name, formField] of Object.entries(shape)) {
      properties[name] = formField.schema;
      if (!formField.isOptional) required.push(name);
    }
    return FormSchema.of({ type: 'object', properties, ...(required.length > 0 && { required }) });
  },
};
