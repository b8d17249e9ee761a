import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Matches values against the `$defs` of one vendored official MCP schema (`test/schemas/schema-<revision>.json`). */
export interface OfficialSchema {
  /** Throws with Ajv's explanation unless `value` matches `$defs[def]`. */
  assertMatches(def: string, value: unknown, what?: string): void;
}

/**
 * Loads one revision's official schema into its own Ajv instance, once per test file, and compiles a validator per
 * `$defs` entry on first use. Shared by the 2026-07-28 and 2025-11-25 wire validators.
 */
export function loadOfficialSchema(revision: '2026-07-28' | '2025-11-25'): OfficialSchema {
  const id = `https://modelcontextprotocol.io/schema/${revision}.json`;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({
    ...JSON.parse(readFileSync(new URL(`../schemas/schema-${revision}.json`, import.meta.url), 'utf8')),
    $id: id,
  });
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (def: string): ValidateFunction => {
    let validate = validators.get(def);
    if (!validate) {
      validate = ajv.compile({ $ref: `${id}#/$defs/${def}` });
      validators.set(def, validate);
    }
    return validate;
  };
  return {
    assertMatches(def, value, what = def) {
      const validate = validatorFor(def);
      if (!validate(value)) {
        throw new Error(
          `${what} does not match ${revision} $defs/${def}: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n` +
            `message: ${JSON.stringify(value)}`,
        );
      }
    },
  };
}
