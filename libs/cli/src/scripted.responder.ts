import { CliError } from './cli.error.js';
import type { ElicitationAnswer, ElicitationParams, ElicitationResponder } from './elicitation-responder.interface.js';
import { describeLink } from './link-display.util.js';

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * Answers elicitations from `--answer key=…` (non-interactive runs): a JSON object accepts with that content;
 * `accept`, `decline` or `cancel` answer with that action. Each answer is given once: when the server asks the same
 * key again, it refused the answer, and sending it again would only loop. A question without an answer fails the
 * run with a line that says which `--answer` is missing (for a URL elicitation, with the link to open and its real
 * host). A URL elicitation whose link is not http(s) is declined, whatever `--answer` says.
 */
export class ScriptedResponder implements ElicitationResponder {
  private readonly used = new Set<string>();

  constructor(private readonly answers: ReadonlyMap<string, string>) {}

  async answer(key: string, params: ElicitationParams): Promise<ElicitationAnswer> {
    const link = params.mode === 'url' ? describeLink(String(params.url)) : undefined;
    if (link && !link.openable) return { action: 'decline' };
    const raw = this.answers.get(key);
    if (raw === undefined) {
      if (link)
        throw new CliError(
          `input required: "${key}" (${oneLine(params.message)}); open ${link.text}, then pass --answer ${key}=accept`,
        );
      const fields = Object.keys(params.requestedSchema?.properties ?? {});
      throw new CliError(
        `input required: "${key}" (${oneLine(params.message)}); pass --answer ${key}='${JSON.stringify(Object.fromEntries(fields.map((field) => [field, '…'])))}'`,
      );
    }
    if (this.used.has(key))
      throw new CliError(`the server did not accept the answer to "${key}" (${oneLine(params.message)})`);
    this.used.add(key);
    if (ACTIONS.has(raw))
      return raw === 'accept' ? { action: 'accept', content: {} } : { action: raw as 'decline' | 'cancel' };
    let content: unknown;
    try {
      content = JSON.parse(raw);
    } catch {
      throw CliError.usage(`--answer ${key} must be a JSON object, or accept, decline or cancel`);
    }
    if (typeof content !== 'object' || content === null || Array.isArray(content))
      throw CliError.usage(`--answer ${key} must be a JSON object`);
    return { action: 'accept', content: content as Record<string, unknown> };
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
