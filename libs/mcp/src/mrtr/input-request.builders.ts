import type { McpClientCapabilities } from '../protocol/mcp-wire.interface.js';
import type { FormSchema } from './form-schema.builder.js';
import type {
  FormAnswer,
  RootsAnswer,
  SamplingAnswer,
  SamplingRequestParams,
  UrlAnswer,
} from './input-answers.interface.js';
import type { McpInputRequest, ParsedAnswer } from './input-request.interface.js';
import { isJsonObject } from '../protocol/json-object.util.js';

const ACTIONS = new Set(['accept', 'decline', 'cancel']);
const malformed = <A>(): ParsedAnswer<A> => ({ ok: false, malformed: true });
const invalid = <A>(): ParsedAnswer<A> => ({ ok: false, malformed: false });

const SAMPLING_CONTENT_TYPES = new Set(['text', 'image', 'audio', 'tool_use', 'tool_result']);
const isSamplingContent = (block: unknown): boolean =>
  isJsonObject(block) && typeof block.type === 'string' && SAMPLING_CONTENT_TYPES.has(block.type);

/** `elicitation: {}` means form mode only (spec 2026-07-28: client/elicitation, "Capabilities"). */
function elicitationModes(capabilities: McpClientCapabilities): { form: boolean; url: boolean } {
  const elicitation = capabilities.elicitation;
  if (!isJsonObject(elicitation)) return { form: false, url: false };
  const declaresModes = 'form' in elicitation || 'url' in elicitation;
  return { form: !declaresModes || isJsonObject(elicitation.form), url: isJsonObject(elicitation.url) };
}

/** Whether this request's capabilities allow elicitation in a mode. */
export function canElicit(capabilities: McpClientCapabilities, mode: 'form' | 'url'): boolean {
  return elicitationModes(capabilities)[mode];
}

/**
 * Builders of what a handler can ask the client for with `ctx.elicit(key, request)`.
 *
 * @example
 * ```ts
 * const answer = await ctx.elicit('confirm', McpInput.form('Delete the backups?', ConfirmForm));
 * if (answer.action !== 'accept' || !answer.content.confirm) return 'Nothing deleted.';
 * ```
 */
export const McpInput = {
  /** A form (elicitation, form mode); the answer's content is validated against the form. */
  form<T>(message: string, form: FormSchema<T>): McpInputRequest<FormAnswer<T>> {
    return {
      method: 'elicitation/create',
      params: { mode: 'form', message, requestedSchema: form.requestedSchema },
      requiredCapabilities: { elicitation: { form: {} } },
      isAllowed: (capabilities) => canElicit(capabilities, 'form'),
      parse: (raw) => {
        if (!isJsonObject(raw) || typeof raw.action !== 'string' || !ACTIONS.has(raw.action)) return malformed();
        if (raw.action !== 'accept') return { ok: true, answer: { action: raw.action as 'decline' | 'cancel' } };
        if (!form.validate(raw.content)) return invalid();
        // Only the fields the form asked for reach the handler (answers are untrusted input).
        const asked = Object.keys((form.requestedSchema.properties ?? {}) as object);
        const submitted = raw.content as Record<string, unknown>;
        const content = Object.fromEntries(
          asked.filter((name) => Object.hasOwn(submitted, name)).map((name) => [name, submitted[name]]),
        );
        return { ok: true, answer: { action: 'accept', content: content as T } };
      },
    };
  },

  /** Sends the user to a URL (elicitation, URL mode), e.g. a third-party sign-in. */
  url(message: string, url: string): McpInputRequest<UrlAnswer> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new TypeError(`McpInput.url needs an absolute URL, got "${url}"`);
    }
    return {
      method: 'elicitation/create',
      params: { mode: 'url', message, url: parsed.toString() },
      requiredCapabilities: { elicitation: { url: {} } },
      isAllowed: (capabilities) => canElicit(capabilities, 'url'),
      parse: (raw) => {
        if (!isJsonObject(raw) || typeof raw.action !== 'string' || !ACTIONS.has(raw.action)) return malformed();
        return { ok: true, answer: { action: raw.action as UrlAnswer['action'] } };
      },
    };
  },

  /** Asks the client's model for a completion (sampling; deprecated in the spec, still supported). */
  sampling(params: SamplingRequestParams): McpInputRequest<SamplingAnswer> {
    const needsTools = params.tools !== undefined || params.toolChoice !== undefined;
    const needsContext = params.includeContext !== undefined && params.includeContext !== 'none';
    const required: McpClientCapabilities = {
      sampling: { ...(needsTools && { tools: {} }), ...(needsContext && { context: {} }) },
    };
    return {
      method: 'sampling/createMessage',
      params: params as unknown as Record<string, unknown>,
      requiredCapabilities: required,
      isAllowed: (capabilities) => {
        const sampling = capabilities.sampling;
        if (!isJsonObject(sampling)) return false;
        return (!needsTools || isJsonObject(sampling.tools)) && (!needsContext || isJsonObject(sampling.context));
      },
      parse: (raw) => {
        if (!isJsonObject(raw) || (raw.role !== 'user' && raw.role !== 'assistant') || typeof raw.model !== 'string')
          return malformed();
        const blocks = Array.isArray(raw.content) ? raw.content : [raw.content];
        if (blocks.length === 0 || !blocks.every(isSamplingContent)) return malformed();
        return { ok: true, answer: raw as SamplingAnswer };
      },
    };
  },

  /** Asks for the client's roots (deprecated in the spec, still supported). */
  roots(): McpInputRequest<RootsAnswer> {
    return {
      method: 'roots/list',
      requiredCapabilities: { roots: {} },
      isAllowed: (capabilities) => isJsonObject(capabilities.roots),
      parse: (raw) => {
        if (!isJsonObject(raw) || !Array.isArray(raw.roots)) return malformed();
        const valid = raw.roots.every(
          (root) => isJsonObject(root) && typeof root.uri === 'string' && root.uri.startsWith('file://'),
        );
        return valid ? { ok: true, answer: raw as unknown as RootsAnswer } : malformed();
      },
    };
  },
};
