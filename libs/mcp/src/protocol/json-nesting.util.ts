import { McpError } from './mcp.error.js';

/**
 * The deepest nesting of arrays and objects in a JSON text, by one linear scan that skips strings: lets a transport
 * refuse pathological messages (`maxJsonDepth`) before they reach recursive code (the parser, validators, digests).
 * The text need not be valid JSON; the count is then meaningless but finite.
 *
 * @example jsonNestingDepth('{"a":[1,{"b":2}]}') // 3
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Whether a JSON text nests deeper than `max`. Cheap for ordinary messages: nesting can only be as deep as the text
 * has opening brackets, so the full scan runs only when there are more than `max` of them.
 */
export function exceedsJsonDepth(text: string, max: number): boolean {
  let brackets = 0;
  for (const bracket of ['{', '[']) {
    let index = text.indexOf(bracket);
    while (index !== -1) {
      if (++brackets > max) return jsonNestingDepth(text) > max;
      index = text.indexOf(bracket, index + 1);
    }
  }
  return false;
}

/**
 * Parses one JSON message a transport received (an HTTP body, a stdio line), refusing a text nested deeper than
 * `maxDepth` before the parser sees it (`-32600`) and an invalid one with `-32700` (`parseError`, worded for what the
 * text was).
 */
export function parseJsonMessage(
  text: string,
  maxDepth: number,
  parseError = 'Parse error: the body is not valid JSON',
): unknown {
  if (exceedsJsonDepth(text, maxDepth))
    throw McpError.invalidRequest(`Invalid Request: JSON nested deeper than ${maxDepth} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw McpError.parseError(parseError);
  }
}
