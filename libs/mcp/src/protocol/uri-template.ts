import { MAX_URI_LENGTH } from './uri.util.js';

/**
 * RFC 6570 URI templates (level 4): parsing, expansion, and the reverse operation, matching a concrete URI
 * against a template to recover its variables (used to route `resources/read` to a resource template).
 */

/** Thrown by the {@link UriTemplate} constructor for a malformed template; the message says what and where. */
export class UriTemplateSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UriTemplateSyntaxError';
  }
}

/**
 * Template variables, by name: a string, or a list of strings.
 *
 * Associative-array values (RFC 6570 "keys") are not supported.
 */
export type UriTemplateVariables = Record<string, string | string[]>;

/** Bootstrap-time bounds on a template, and a request-time bound on the URIs it is matched against. */
const MAX_TEMPLATE_LENGTH = 4096;
const MAX_EXPRESSIONS = 64;

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

/** How an operator expands (the table of RFC 6570 Appendix A). */
interface OperatorBehavior {
  /** Emitted before the first defined variable. */
  readonly first: string;
  /** Emitted between defined variables (and between the items of an exploded list). */
  readonly sep: string;
  /** Whether values are emitted as `name=value` pairs. */
  readonly named: boolean;
  /** What follows the name of a named variable whose value is empty. */
  readonly ifEmpty: string;
  /** Whether reserved characters and percent-encoded triplets pass through unencoded. */
  readonly allowReserved: boolean;
}

const OPERATORS: Readonly<Record<Operator, OperatorBehavior>> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', allowReserved: false },
};

/** Operator characters RFC 6570 reserves for future extensions. */
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
const PREFIX_LENGTH = /^[1-9][0-9]{0,3}$/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** Characters that may appear unencoded anywhere in a URI (RFC 3986 unreserved + reserved). */
const URI_CHARACTER = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]$/;
/** Runs of characters to percent-encode: everything but unreserved characters. */
const NOT_UNRESERVED = /[^A-Za-z0-9\-._~]+/g;
/** A percent-encoded triplet (kept as is), or a run of characters outside unreserved + reserved, or a stray `%`. */
const NOT_URI = /(%[0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+|%/g;
/** Delimiters no segment-bound value can contain: they are always percent-encoded by its expansion. */
const HARD_DELIMITERS = ['/', '?', '#'];

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  /** The prefix modifier `{name:n}`: at most n characters (code points) of the value. */
  readonly maxLength?: number;
}

interface Literal {
  readonly kind: 'literal';
  readonly text: string;
}

/** An operator and its variables: what an expression and a capture of the matching RegExp have in common. */
interface OperatorGroup {
  readonly operator: Operator;
  readonly vars: readonly VarSpec[];
  /** As written in the template, e.g. `{?q,lang}` (for error messages). */
  readonly source: string;
}

interface Expression extends OperatorGroup {
  readonly kind: 'expression';
}

type TemplatePart = Literal | Expression;

/**
 * One capture group of the matching RegExp: a single expression, or a run of adjacent parameter expressions
 * (`{?a}{&b}`, `{;x}{;y}`) whose parameters may come in any order.
 */
interface Capture extends OperatorGroup {
  readonly kind: 'capture';
}

type MatchToken = Literal | Capture;

/** The characters that may start what follows a position of the template (`any` when unknowable). */
interface FollowSet {
  readonly chars: ReadonlySet<string>;
  readonly any: boolean;
}

/**
 * An RFC 6570 URI template, parsed once and then expanded or matched any number of times.
 *
 * @example
 * const template = new UriTemplate('users://{id}/posts{?limit}');
 * template.expand({ id: '42', limit: '10' }); // 'users://42/posts?limit=10'
 * template.match('users://42/posts');         // { id: '42' }
 */
export class UriTemplate {
  /** The template as written. */
  readonly template: string;
  /** The names of the template's variables, unique, in order of first appearance. */
  readonly variableNames: readonly string[];
  /**
   * Ranks templates that match the same URI: the higher, the more specific.
   *
   * Literal characters dominate; among templates with as many literal characters, each expression that can span
   * several path segments (`{+x}`, `{#x}`, `{/x*}`, `{/x,y}`) lowers the score by one.
   */
  readonly specificity: number;

  private readonly parts: readonly TemplatePart[];
  private readonly captures: readonly Capture[];
  private readonly pattern: RegExp;

  /**
   * Parses the template and compiles its matcher.
   *
   * @throws UriTemplateSyntaxError for a malformed template (unbalanced braces, an empty expression, an invalid
   * variable name or prefix modifier, a reserved operator, a stray `%` or control character, more than 4096
   * characters or 64 expressions), or one too ambiguous to match in linear time: at most one expression may end
   * at several places (e.g. `{+a}/x/{+b}/y`, `{a}{b}` and `{/a}/x{/b}/y` are rejected).
   */
  constructor(template: string) {
    this.template = template;
    this.parts = parseTemplate(template);
    this.variableNames = [
      ...new Set(this.parts.flatMap((part) => (part.kind === 'expression' ? part.vars.map((v) => v.name) : []))),
    ];
    const matcher = compileMatcher(template, this.parts);
    this.captures = matcher.captures;
    this.pattern = matcher.pattern;
    this.specificity = computeSpecificity(this.parts);
  }

  /**
   * Matches a whole URI against the template and returns its variables (percent-decoded), or `null`.
   *
   * - A simple `{var}` does not span `/`, `?` or `#`; `{+var}` and `{#var}` may span `/` (and `{+var}` stops
   *   before a `?` or `#` when the template goes on with a query or fragment).
   * - Exploded variables (`{/path*}`, `{?tag*}`) come back as `string[]`, others as a string (an unexploded list
   *   keeps its commas: `"red,green,blue"`).
   * - Parameter expressions (`{?a,b}{&c}`, `{;x}`) accept their parameters in any order, tolerate absent ones and
   *   reject unknown ones.
   * - Absent optional expressions leave their variables out; `{var}` and `{+var}` need at least one character.
   *   Consecutive optional expressions fill from the left (`{/a}{/b}` matches `/x` with `a = "x"`), like the
   *   variables of one expression (`{x,y}` matches `1` with `x = "1"`).
   * - A prefix modifier bounds the value (`{id:3}` does not match `abcd`); a variable repeated in the template
   *   must have one value.
   * - Where the split between two values is ambiguous, a variable ends at the first character that can follow
   *   it, except the last variable before a `/`, `?`, `#` or the end, which takes the longest value that fits
   *   (`{name}.txt` matches `a.b.txt` with `name = "a.b"`).
   *
   * Never throws: a URI longer than 8192 characters or with a malformed percent-escape does not match.
   */
  match(uri: string): UriTemplateVariables | null {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) return null;
    const found = this.pattern.exec(uri);
    if (!found) return null;
    const captured: Captured = [];
    try {
      for (const [index, capture] of this.captures.entries()) {
        const raw = found[index + 1];
        if (raw === undefined) continue;
        const values = OPERATORS[capture.operator].named ? readParameters(capture, raw) : readValues(capture, raw);
        if (!values) return null;
        captured.push(...values);
      }
    } catch (error) {
      if (error instanceof URIError) return null;
      throw error;
    }
    return reconcile(captured);
  }

  /**
   * Expands the template (RFC 6570 level 4). Undefined variables and empty lists expand to nothing; a prefix
   * modifier does not apply to a list.
   */
  expand(variables: UriTemplateVariables): string {
    return this.parts
      .map((part) => (part.kind === 'literal' ? encode(part.text, true) : expandExpression(part, variables)))
      .join('');
  }

  /** The template as written. */
  toString(): string {
    return this.template;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

function syntaxError(template: string, problem: string, position: number): UriTemplateSyntaxError {
  return new UriTemplateSyntaxError(`Invalid URI template "${template}": ${problem} at position ${position}`);
}

function parseTemplate(template: string): TemplatePart[] {
  if (typeof template !== 'string') throw new UriTemplateSyntaxError('A URI template must be a string');
  if (template.length > MAX_TEMPLATE_LENGTH) {
    throw new UriTemplateSyntaxError(
      `URI template is too long (${template.length} characters, at most ${MAX_TEMPLATE_LENGTH})`,
    );
  }
  const parts: TemplatePart[] = [];
  let literal = '';
  let expressions = 0;
  for (let i = 0; i < template.length; i++) {
    const char = template[i];
    if (char === '{') {
      const end = template.indexOf('}', i + 1);
      if (end === -1) throw syntaxError(template, 'unclosed "{"', i);
      const nested = template.indexOf('{', i + 1);
      if (nested !== -1 && nested < end) throw syntaxError(template, 'unexpected "{" inside an expression', nested);
      if (++expressions > MAX_EXPRESSIONS) {
        throw syntaxError(template, `more than ${MAX_EXPRESSIONS} expressions`, i);
      }
      if (literal) parts.push({ kind: 'literal', text: literal });
      literal = '';
      parts.push(parseExpression(template, i, end));
      i = end;
    } else if (char === '}') {
      throw syntaxError(template, 'unmatched "}"', i);
    } else if (char === '%' && !/^%[0-9A-Fa-f]{2}/.test(template.slice(i, i + 3))) {
      throw syntaxError(template, 'invalid percent-encoding', i);
    } else if (CONTROL_CHARACTER.test(char)) {
      throw syntaxError(template, 'control character', i);
    } else {
      literal += char;
    }
  }
  if (literal) parts.push({ kind: 'literal', text: literal });
  return parts;
}

/** Parses the expression between the braces at `start` and `end`. */
function parseExpression(template: string, start: number, end: number): Expression {
  const source = template.slice(start, end + 1);
  let body = template.slice(start + 1, end);
  if (!body) throw syntaxError(template, 'empty expression', start);
  if (RESERVED_OPERATORS.has(body[0])) {
    throw syntaxError(template, `operator "${body[0]}" is reserved for future extensions`, start + 1);
  }
  let operator: Operator = '';
  if (body[0] in OPERATORS) {
    operator = body[0] as Operator;
    body = body.slice(1);
  }
  let offset = start + 1 + operator.length;
  const vars = body.split(',').map((varspec) => {
    const parsed = parseVarSpec(template, varspec, offset);
    offset += varspec.length + 1;
    return parsed;
  });
  return { kind: 'expression', operator, vars, source };
}

function parseVarSpec(template: string, varspec: string, position: number): VarSpec {
  let name = varspec;
  let explode = false;
  let maxLength: number | undefined;
  const colon = varspec.indexOf(':');
  if (colon !== -1) {
    name = varspec.slice(0, colon);
    const digits = varspec.slice(colon + 1);
    if (!PREFIX_LENGTH.test(digits)) {
      throw syntaxError(template, `invalid prefix modifier ":${digits}" (expected 1 to 9999)`, position + colon);
    }
    maxLength = Number(digits);
  } else if (varspec.endsWith('*')) {
    name = varspec.slice(0, -1);
    explode = true;
  }
  if (!VARNAME.test(name)) {
    throw syntaxError(template, name ? `invalid variable name "${name}"` : 'missing variable name', position);
  }
  return maxLength === undefined ? { name, explode } : { name, explode, maxLength };
}

// ---------------------------------------------------------------------------------------------------------------
// Expansion

function expandExpression(expression: Expression, variables: UriTemplateVariables): string {
  const behavior = OPERATORS[expression.operator];
  const expanded: string[] = [];
  for (const varspec of expression.vars) {
    const value: unknown = Object.hasOwn(variables, varspec.name) ? variables[varspec.name] : undefined;
    if (typeof value === 'string') expanded.push(expandString(varspec, value, behavior));
    else if (Array.isArray(value) && value.length > 0) expanded.push(expandList(varspec, value.map(String), behavior));
  }
  return expanded.length ? behavior.first + expanded.join(behavior.sep) : '';
}

function expandString(varspec: VarSpec, value: string, behavior: OperatorBehavior): string {
  const encoded = encode(truncate(value, varspec.maxLength), behavior.allowReserved);
  return behavior.named ? namedValue(varspec.name, encoded, behavior) : encoded;
}

function expandList(varspec: VarSpec, items: string[], behavior: OperatorBehavior): string {
  const encoded = items.map((item) => encode(item, behavior.allowReserved));
  if (!varspec.explode) return behavior.named ? `${varspec.name}=${encoded.join(',')}` : encoded.join(',');
  return encoded.map((item) => (behavior.named ? namedValue(varspec.name, item, behavior) : item)).join(behavior.sep);
}

function namedValue(name: string, encoded: string, behavior: OperatorBehavior): string {
  return encoded ? `${name}=${encoded}` : name + behavior.ifEmpty;
}

/** The first `maxLength` characters (code points, never half a surrogate pair) of a value. */
function truncate(value: string, maxLength: number | undefined): string {
  if (maxLength === undefined || value.length <= maxLength) return value;
  return Array.from(value).slice(0, maxLength).join('');
}

/**
 * Percent-encodes a value: everything but unreserved characters, or, with `allowReserved` (`{+x}`, `{#x}` and
 * literal text), everything but unreserved and reserved characters and existing percent-encoded triplets.
 */
function encode(value: string, allowReserved: boolean): string {
  return allowReserved
    ? value.replace(NOT_URI, (run, triplet: string | undefined) => triplet ?? percentEncode(run))
    : value.replace(NOT_UNRESERVED, percentEncode);
}

const utf8 = new TextEncoder();

function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of utf8.encode(text)) encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return encoded;
}

// ---------------------------------------------------------------------------------------------------------------
// Matching: compilation
//
// The template compiles to one anchored RegExp with one capture group per expression (or run of parameter
// expressions), each a single repeated character class, optional when the expression has a prefix character.
// V8's RegExp engine backtracks, so the groups are shaped to leave it (almost) no choices, which keeps matching
// linear on hostile URIs:
// - a group whose class excludes every character that can follow it has a single candidate end;
// - so has a segment-bound group (its class excludes `/`, `?`, `#`) followed only by literal text up to such a
//   delimiter or the end, which may therefore stay greedy (`{name}.txt` matches `a.b.txt`);
// - otherwise a segment-bound or parameter group is narrowed to stop at the first character that can follow it;
// - an optional group followed by its own prefix character (`{/a}{/b}`) is taken whenever that character is
//   there, which loses no match as long as the text after the run of optional groups cannot start with it.
// What remains is a "choice point": a group that can end at many places (`{+x}`, `{#x}`, `{/x*}` followed by text
// they may contain, a group directly followed by a prefix-less expression) or an optional group that may be
// absent before its own prefix character (`{/a}/b`). A template may have one; every group after an unbounded one
// is narrowed to exclude the characters its candidate ends are at, so that nothing rescans the text between two
// candidates. Any other template is rejected as ambiguous.

function compileMatcher(template: string, parts: readonly TemplatePart[]): { pattern: RegExp; captures: Capture[] } {
  const tokens = groupParameterRuns(parts);
  const follows = followSets(tokens);
  const exclusions = new Map<Capture, Set<string>>();
  const forced = new Set<Capture>();
  let choicePoint: Capture | undefined;
  let unbounded: { capture: Capture; follow: FollowSet } | undefined;
  const claimChoicePoint = (capture: Capture): void => {
    if (choicePoint) {
      throw ambiguity(template, `${choicePoint.source} and ${capture.source} can both end at several places`);
    }
    choicePoint = capture;
  };

  for (const [index, token] of tokens.entries()) {
    if (token.kind === 'literal') continue;
    const excluded = baseExclusions(token, tokens.slice(index + 1));
    exclusions.set(token, excluded);
    const follow = follows[index + 1];
    const ambiguous = follow.any || [...follow.chars].some((char) => !excluded.has(char));
    const singleEnd = !ambiguous || (isSegmentBound(excluded) && reachesDelimiterThroughLiterals(tokens, index + 1));
    if (!singleEnd) {
      if (!canExclude(token, follow)) {
        claimChoicePoint(token);
        unbounded = { capture: token, follow };
        continue;
      }
      follow.chars.forEach((char) => excluded.add(char));
    }
    const prefix = OPERATORS[token.operator].first;
    if (prefix && (follow.any || follow.chars.has(prefix))) {
      const afterRun = follows[endOfOptionalRun(tokens, index)];
      if (afterRun.any || afterRun.chars.has(prefix)) claimChoicePoint(token);
      else forced.add(token);
    }
  }

  const captures = [...exclusions.keys()];
  if (unbounded) {
    const { capture: first, follow } = unbounded;
    for (const capture of captures.slice(captures.indexOf(first) + 1)) {
      const excluded = exclusions.get(capture)!;
      // A last group that matches anything up to the end cannot fail, so it never rescans.
      const isCatchAll = excluded.size === 0 && tokens.at(-1) === capture;
      if (isCatchAll || (!follow.any && [...follow.chars].every((char) => excluded.has(char)))) continue;
      if (!canExclude(capture, follow)) {
        throw ambiguity(template, `${capture.source} may contain the text that ends ${first.source}`);
      }
      follow.chars.forEach((char) => excluded.add(char));
    }
  }

  let source = '^';
  for (const token of tokens) {
    source +=
      token.kind === 'literal'
        ? literalPattern(token.text)
        : capturePattern(token, exclusions.get(token)!, forced.has(token));
  }
  return { pattern: new RegExp(`${source}$`), captures };
}

function ambiguity(template: string, problem: string): UriTemplateSyntaxError {
  return new UriTemplateSyntaxError(
    `Ambiguous URI template "${template}": ${problem}; separate them with literal text the first one cannot contain`,
  );
}

/** The index of the first token after `start` that is not an optional (prefixed) expression. */
function endOfOptionalRun(tokens: readonly MatchToken[], start: number): number {
  let end = start + 1;
  while (end < tokens.length) {
    const token = tokens[end];
    if (token.kind === 'literal' || !OPERATORS[token.operator].first) break;
    end++;
  }
  return end;
}

/** Merges adjacent parameter expressions of one kind (`{?a}{&b}`, `{;x}{;y}`) into one capture. */
function groupParameterRuns(parts: readonly TemplatePart[]): MatchToken[] {
  const tokens: MatchToken[] = [];
  for (const part of parts) {
    if (part.kind === 'literal') {
      tokens.push(part);
      continue;
    }
    const previous = tokens.at(-1);
    const continuesRun =
      previous?.kind === 'capture' &&
      ((part.operator === '&' && (previous.operator === '?' || previous.operator === '&')) ||
        (part.operator === ';' && previous.operator === ';'));
    const capture: Capture = { kind: 'capture', operator: part.operator, vars: part.vars, source: part.source };
    if (continuesRun) {
      tokens[tokens.length - 1] = {
        ...previous,
        vars: [...previous.vars, ...part.vars],
        source: previous.source + part.source,
      };
    } else {
      tokens.push(capture);
    }
  }
  return tokens;
}

/** For each token index (and the end), the characters that can start the rest of the URI from there. */
function followSets(tokens: readonly MatchToken[]): FollowSet[] {
  const follows: FollowSet[] = new Array<FollowSet>(tokens.length + 1);
  follows[tokens.length] = { chars: new Set(), any: false };
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i];
    if (token.kind === 'literal') {
      const char = token.text[0];
      // A literal character outside the URI alphabet may also arrive percent-encoded.
      follows[i] = { chars: new Set(URI_CHARACTER.test(char) ? [char] : [char, '%']), any: false };
    } else {
      const first = OPERATORS[token.operator].first;
      // An expression with a prefix character is optional (all its variables may be undefined).
      follows[i] = first
        ? { chars: new Set([first, ...follows[i + 1].chars]), any: follows[i + 1].any }
        : { chars: new Set(), any: true };
    }
  }
  return follows;
}

/** The characters a capture's text can never contain, before tightening. */
function baseExclusions(capture: Capture, rest: readonly MatchToken[]): Set<string> {
  switch (capture.operator) {
    case '+': {
      // Reserved expansion may contain anything; stop it before a query or fragment the template goes on with.
      const excluded = new Set<string>();
      if (rest.some((t) => (t.kind === 'literal' ? t.text.includes('?') : t.operator === '?' || t.operator === '&'))) {
        excluded.add('?');
      }
      if (rest.some((t) => (t.kind === 'literal' ? t.text.includes('#') : t.operator === '#'))) excluded.add('#');
      return excluded;
    }
    case '#':
      return new Set();
    case '?':
    case '&':
      return new Set(['#']);
    case '/':
      return new Set(spansSegments(capture) ? ['?', '#'] : HARD_DELIMITERS);
    default:
      return new Set(HARD_DELIMITERS);
  }
}

/** Whether the capture's text can contain several path segments (`{/a,b}` and `{/list*}` expand to `/x/y`). */
function spansSegments(capture: Pick<Capture, 'operator' | 'vars'>): boolean {
  return capture.operator === '/' && (capture.vars.length > 1 || capture.vars.some((v) => v.explode));
}

function isSegmentBound(excluded: ReadonlySet<string>): boolean {
  return HARD_DELIMITERS.every((char) => excluded.has(char));
}

/**
 * Whether the capture's class can exclude the characters that may follow it without changing what the capture
 * means: not for reserved or exploded-path captures, nor when excluding `%` (encoded values), the capture's own
 * separator or, for parameters, `=`.
 */
function canExclude(capture: Capture, follow: FollowSet): boolean {
  const { operator, vars } = capture;
  if (follow.any || operator === '+' || operator === '#' || (operator === '/' && vars.some((v) => v.explode))) {
    return false;
  }
  const { sep, named } = OPERATORS[operator];
  const structural = ['%'];
  if (named) structural.push(sep, '=');
  else if (vars.length > 1 || vars.some((v) => v.explode)) structural.push(sep);
  return !structural.some((char) => follow.chars.has(char));
}

/**
 * Whether, from `start`, every way through the template meets only literal text before a `/`, `?`, `#` or the
 * end: then a segment-bound capture before it has a single candidate end.
 */
function reachesDelimiterThroughLiterals(tokens: readonly MatchToken[], start: number): boolean {
  for (const token of tokens.slice(start)) {
    if (token.kind === 'literal') {
      if (HARD_DELIMITERS.some((char) => token.text.includes(char))) return true;
    } else if (!HARD_DELIMITERS.includes(token.operator)) {
      return false;
    }
    // An optional `{/x}`, `{?x}` or `{#x}` starts with a delimiter when present; when absent, look further.
  }
  return true;
}

/**
 * The RegExp of one capture. An optional capture is `(?:p(...))?`, or, when `forced`, `(?:p(...)|(?!p))`: present
 * whenever its prefix character `p` is there, so the engine has no present-or-absent choice to backtrack into.
 */
function capturePattern(capture: Capture, excluded: ReadonlySet<string>, forced: boolean): string {
  const prefix = OPERATORS[capture.operator].first;
  // `{x}` and `{+x}` have no prefix to tell an empty value from an absent one: require a character.
  if (!prefix) return `(${characterClass(excluded)}+)`;
  let body = `${characterClass(excluded)}*`;
  if (capture.operator === '/' && !capture.vars.some((v) => v.explode)) {
    // `{/a,b}` spans at most as many segments as it has variables.
    const segment = `${characterClass(new Set([...excluded, '/']))}*`;
    body = `${segment}(?:/${segment}){0,${capture.vars.length - 1}}`;
  }
  const escaped = escapeRegExp(prefix);
  return forced ? `(?:${escaped}(${body})|(?!${escaped}))` : `(?:${escaped}(${body}))?`;
}

function characterClass(excluded: ReadonlySet<string>): string {
  if (excluded.size === 0) return '[\\s\\S]';
  return `[^${[...excluded].map((char) => char.replace(/[\\\]^[-]/g, '\\$&')).join('')}]`;
}

/** Matches literal text; a character outside the URI alphabet also matches its (case-insensitive) %-encoding. */
function literalPattern(text: string): string {
  let pattern = '';
  for (const char of text) {
    if (URI_CHARACTER.test(char) || char === '%') {
      pattern += escapeRegExp(char);
    } else {
      const encoded = percentEncode(char).replace(/[A-F]/g, (hex) => `[${hex}${hex.toLowerCase()}]`);
      pattern += `(?:${escapeRegExp(char)}|${encoded})`;
    }
  }
  return pattern;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function computeSpecificity(parts: readonly TemplatePart[]): number {
  let literalLength = 0;
  let spanning = 0;
  for (const part of parts) {
    if (part.kind === 'literal') literalLength += part.text.length;
    else if (part.operator === '+' || part.operator === '#' || spansSegments(part)) spanning++;
  }
  // At most MAX_EXPRESSIONS spanning expressions: one more literal character always outranks them.
  return literalLength * (MAX_EXPRESSIONS + 1) - spanning;
}

// ---------------------------------------------------------------------------------------------------------------
// Matching: reading the captured text back into variables (decoding throws URIError on a malformed escape)

type Captured = Array<[VarSpec, string | string[]]>;

/** `{x,y}`, `{.x}`, `{/list*}`, …: items separated by the operator's separator, assigned in order. */
function readValues(capture: Capture, raw: string): Captured | null {
  const { sep } = OPERATORS[capture.operator];
  const items = raw.split(sep);
  const captured: Captured = [];
  for (const [index, varspec] of capture.vars.entries()) {
    if (index >= items.length) break;
    // The last variable takes the surplus: an exploded list, or an unexploded value that contained the separator
    // (`.` is unreserved, and an unexploded list is comma-separated); a raw `/` inside a value is never produced.
    const isLast = index === capture.vars.length - 1;
    const own = isLast ? items.slice(index) : [items[index]];
    if (varspec.explode) captured.push([varspec, own.map(decodeURIComponent)]);
    else if (own.length > 1 && sep === '/') return null;
    else captured.push([varspec, decodeURIComponent(own.join(sep))]);
  }
  return captured;
}

/** `{?a,b}`, `{;x}`, …: `name=value` parameters in any order; unknown or repeated (unexploded) names fail. */
function readParameters(capture: Capture, raw: string): Captured | null {
  const { sep } = OPERATORS[capture.operator];
  const byName = new Map(capture.vars.map((varspec) => [varspec.name, varspec]));
  const seen = new Set<VarSpec>();
  const lists = new Map<VarSpec, string[]>();
  const captured: Captured = [];
  for (const parameter of raw.split(sep)) {
    if (!parameter) continue;
    const equals = parameter.indexOf('=');
    const varspec = byName.get(equals === -1 ? parameter : parameter.slice(0, equals));
    if (!varspec) return null;
    const value = equals === -1 ? '' : decodeURIComponent(parameter.slice(equals + 1));
    if (varspec.explode) {
      let list = lists.get(varspec);
      if (!list) {
        list = [];
        lists.set(varspec, list);
        captured.push([varspec, list]);
      }
      list.push(value);
    } else {
      if (seen.has(varspec)) return null;
      seen.add(varspec);
      captured.push([varspec, value]);
    }
  }
  return captured;
}

/**
 * Builds the result, checking prefix modifiers and that a variable appearing several times has one value
 * (a `{x:3}` capture only has to be a prefix of the full value).
 */
function reconcile(captured: Captured): UriTemplateVariables | null {
  // A Map, not an object literal: a variable may be named `__proto__` or `constructor`.
  const result = new Map<string, string | string[]>();
  const truncated = new Set<string>(); // variables whose value so far only comes from prefix captures
  for (const [{ name, maxLength }, value] of captured) {
    const isPrefix = maxLength !== undefined && typeof value === 'string';
    if (isPrefix && Array.from(value).length > maxLength) return null;
    const previous = result.get(name);
    if (previous === undefined || (truncated.has(name) && startsWith(value, previous))) {
      result.set(name, value);
      if (!isPrefix) truncated.delete(name);
      else if (previous === undefined) truncated.add(name);
    } else if (!sameValue(previous, value) && !(isPrefix && startsWith(previous, value))) {
      return null;
    }
  }
  return Object.fromEntries(result);
}

function startsWith(value: string | string[], prefix: string | string[]): boolean {
  return typeof value === 'string' && typeof prefix === 'string' && value.startsWith(prefix);
}

function sameValue(a: string | string[], b: string | string[]): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
