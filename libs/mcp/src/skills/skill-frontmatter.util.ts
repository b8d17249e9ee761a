import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import type { JsonObject } from '../protocol/json-rpc.interface.js';

/**
 * The frontmatter block at the very start of a `SKILL.md`, as the conformance suite finds it: `---`, a line break,
 * the YAML, a line break, `---` (trailing blanks allowed), then a line break or the end. `\r\n` is accepted.
 */
const FRONTMATTER_BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The byte order mark some editors write at the start of a UTF-8 file. */
const BOM = '\uFEFF';

/** What reading a `SKILL.md`'s frontmatter gave: the value, or why there is none. */
export type SkillFrontmatterResult =
  | { readonly ok: true; readonly frontmatter: JsonObject }
  | { readonly ok: false; readonly problem: string };

/**
 * Parses the frontmatter of a `SKILL.md` text exactly as hosts and checkers do (the `yaml` package's `parse` with
 * default options; only its console warnings are silenced, which changes no value), so that a skill entry's
 * `frontmatter` deep-equals what a host parses from the served file (SEP-2640, "Frontmatter"; S-09). The value is
 * never edited or coerced: `version: 2.1` stays a number. A value JSON cannot carry unchanged (`.nan`, `.inf`) is
 * refused, since the entry would then differ from the file.
 */
export function readSkillFrontmatter(text: string): SkillFrontmatterResult {
  if (text.startsWith(BOM)) return { ok: false, problem: 'starts with a byte order mark (strip it before parsing)' };
  const block = FRONTMATTER_BLOCK.exec(text);
  if (!block)
    return {
      ok: false,
      problem: 'does not begin with a YAML frontmatter block (a line "---", the YAML, a line "---")',
    };
  let value: unknown;
  try {
    value = parse(block[1], { logLevel: 'error' });
  } catch (error) {
    return { ok: false, problem: `has frontmatter that is not valid YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'has frontmatter that is not a YAML mapping' };
  }
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(value));
  } catch {
    json = undefined;
  }
  if (!isDeepStrictEqual(json, value)) {
    return { ok: false, problem: 'has frontmatter values JSON cannot carry unchanged (such as .nan or .inf)' };
  }
  return { ok: true, frontmatter: value as JsonObject };
}

/** `bytes` without a leading UTF-8 byte order mark (hosts compare digests of the bytes served, so it is never served). */
export function stripBom(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}
