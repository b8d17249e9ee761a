import { createInterface } from 'node:readline/promises';
import type { ElicitationAnswer, ElicitationParams, ElicitationResponder } from './elicitation-responder.interface.js';
import { describeLink } from './link-display.util.js';
import { sanitizeTerminalText } from './terminal-text.sanitizer.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

type FieldSchema = Record<string, unknown>;

interface Choice {
  value: string;
  title: string;
}

/** Server text that must stay on its line (a title, a choice, a hint), control characters escaped. */
const inline = (text: unknown): string => sanitizeTerminalText(String(text), { multiline: false });
/** Server text that may span lines (the message, a description), control characters escaped. */
const block = (text: unknown): string => sanitizeTerminalText(String(text));

/** Thrown inside the form when the person presses Ctrl+C: the elicitation is answered with `cancel`. */
class FormCancelled extends Error {}

/**
 * Asks an elicitation as a form on the terminal (node:readline): the message, then one question per field of the
 * requested schema — typed, with its title, description, default and choices — re-asking until the value fits,
 * then whether to send it (accept), decline or cancel. Ctrl+C cancels the elicitation, not the program. A URL
 * elicitation shows the link with the host it really opens and waits until the person is done; a link that is not
 * http(s) is declined without asking. Every text of the server is shown with its control characters escaped.
 */
export class TerminalFormResponder implements ElicitationResponder {
  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    /** Called before anything is printed (the progress bar clears its line). */
    private readonly beforePrompt: () => void = () => {},
  ) {}

  async answer(_key: string, params: ElicitationParams): Promise<ElicitationAnswer> {
    this.beforePrompt();
    const lines = createInterface({ input: this.input, output: this.output, terminal: true });
    const interrupted = new AbortController();
    lines.on('SIGINT', () => interrupted.abort());
    const ask = async (query: string): Promise<string> => {
      try {
        return (await lines.question(query, { signal: interrupted.signal })).trim();
      } catch (error) {
        if (interrupted.signal.aborted) throw new FormCancelled();
        throw error;
      }
    };
    try {
      this.output.write(`\n${BOLD}? ${block(params.message)}${RESET}\n`);
      if (params.mode === 'url') return await this.urlAnswer(params, ask);
      const content: Record<string, unknown> = {};
      const required = new Set(params.requestedSchema?.required ?? []);
      for (const [name, schema] of Object.entries(params.requestedSchema?.properties ?? {})) {
        const value = await this.askField(name, schema, required.has(name), ask);
        if (value !== undefined) content[name] = value;
      }
      const decision = (await ask(`  Send? ${DIM}[Y]es, [n]o = decline, [c]ancel${RESET} `)).toLowerCase();
      if (decision === 'n' || decision === 'no' || decision === 'decline') return { action: 'decline' };
      if (decision === 'c' || decision === 'cancel') return { action: 'cancel' };
      return { action: 'accept', content };
    } catch (error) {
      if (error instanceof FormCancelled) {
        this.output.write('\n');
        return { action: 'cancel' };
      }
      throw error;
    } finally {
      lines.close();
    }
  }

  private async urlAnswer(
    params: ElicitationParams,
    ask: (query: string) => Promise<string>,
  ): Promise<ElicitationAnswer> {
    const link = describeLink(String(params.url));
    if (!link.openable) {
      this.output.write(`  Declined, the server asked to open ${link.text}\n`);
      return { action: 'decline' };
    }
    this.output.write(`  Open ${link.text}\n`);
    const reply = (await ask(`  Done? ${DIM}[Y]es, [n]o = decline, [c]ancel${RESET} `)).toLowerCase();
    if (reply === 'n' || reply === 'no' || reply === 'decline') return { action: 'decline' };
    if (reply === 'c' || reply === 'cancel') return { action: 'cancel' };
    return { action: 'accept' };
  }

  /** Asks one field until the reply fits its schema; `undefined` for an optional field left empty. */
  private async askField(
    name: string,
    schema: FieldSchema,
    required: boolean,
    ask: (query: string) => Promise<string>,
  ): Promise<unknown> {
    const title = inline(typeof schema.title === 'string' ? schema.title : name);
    if (typeof schema.description === 'string') this.output.write(`  ${DIM}${block(schema.description)}${RESET}\n`);
    const choices = choicesOf(schema.type === 'array' ? (schema.items as FieldSchema | undefined) : schema);
    if (choices) choices.forEach((choice, index) => this.output.write(`    ${index + 1}) ${inline(choice.title)}\n`));
    const hint = inline(
      [
        fieldHint(schema, choices),
        schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : required ? '' : 'optional',
      ]
        .filter(Boolean)
        .join(', '),
    );
    for (;;) {
      const reply = await ask(`  ${title}${hint ? ` ${DIM}(${hint})${RESET}` : ''}: `);
      if (reply === '') {
        if (schema.default !== undefined) return schema.default;
        if (!required) return undefined;
        this.output.write('    a value is required\n');
        continue;
      }
      const parsed = parseField(reply, schema, choices);
      if (parsed.ok) return parsed.value;
      this.output.write(`    ${parsed.reason}\n`);
    }
  }
}

/** The choices of an enum field: `enum` (with legacy `enumNames`), or `oneOf`/`anyOf` of `{ const, title }`. */
function choicesOf(schema: FieldSchema | undefined): Choice[] | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({ value: String(value), title: String(names[index] ?? value) }));
  }
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!options) return undefined;
  return (options as FieldSchema[])
    .filter((option) => option.const !== undefined)
    .map((option) => ({ value: String(option.const), title: String(option.title ?? option.const) }));
}

function fieldHint(schema: FieldSchema, choices: Choice[] | undefined): string {
  if (choices) return schema.type === 'array' ? 'numbers, comma-separated' : `1-${choices.length}`;
  if (schema.type === 'boolean') return 'y/n';
  if (schema.type === 'integer' || schema.type === 'number') {
    const range = [
      schema.minimum !== undefined ? `≥ ${schema.minimum}` : '',
      schema.maximum !== undefined ? `≤ ${schema.maximum}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    return [schema.type, range].filter(Boolean).join(' ');
  }
  return typeof schema.format === 'string' ? schema.format : '';
}

function parseField(
  reply: string,
  schema: FieldSchema,
  choices: Choice[] | undefined,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (choices) {
    const pick = (text: string): string | undefined => {
      const index = Number(text);
      if (Number.isInteger(index) && index >= 1 && index <= choices.length) return choices[index - 1].value;
      return choices.find((choice) => choice.value === text)?.value;
    };
    if (schema.type === 'array') {
      const values = reply.split(',').map((part) => pick(part.trim()));
      return values.every((value) => value !== undefined)
        ? { ok: true, value: values }
        : { ok: false, reason: `pick numbers between 1 and ${choices.length}` };
    }
    const value = pick(reply);
    return value !== undefined
      ? { ok: true, value }
      : { ok: false, reason: `pick a number between 1 and ${choices.length}` };
  }
  switch (schema.type) {
    case 'boolean': {
      const answer = reply.toLowerCase();
      if (['y', 'yes', 'true'].includes(answer)) return { ok: true, value: true };
      if (['n', 'no', 'false'].includes(answer)) return { ok: true, value: false };
      return { ok: false, reason: 'answer y or n' };
    }
    case 'integer':
    case 'number': {
      const value = Number(reply);
      if (!Number.isFinite(value) || (schema.type === 'integer' && !Number.isInteger(value)))
        return { ok: false, reason: `a${schema.type === 'integer' ? 'n integer' : ' number'} is needed` };
      if (typeof schema.minimum === 'number' && value < schema.minimum)
        return { ok: false, reason: `at least ${schema.minimum}` };
      if (typeof schema.maximum === 'number' && value > schema.maximum)
        return { ok: false, reason: `at most ${schema.maximum}` };
      return { ok: true, value };
    }
    default: {
      const length = [...reply].length;
      if (typeof schema.minLength === 'number' && length < schema.minLength)
        return { ok: false, reason: `at least ${schema.minLength} characters` };
      if (typeof schema.maxLength === 'number' && length > schema.maxLength)
        return { ok: false, reason: `at most ${schema.maxLength} characters` };
      return { ok: true, value: reply };
    }
  }
}
