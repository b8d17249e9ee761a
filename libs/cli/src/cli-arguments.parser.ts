import { CliError } from './cli.error.js';
import { splitShellWords } from './shell-words.util.js';

/** The commands of `nest-mcp`. */
export type CliCommand = 'tools' | 'call' | 'read' | 'prompt' | 'events';

/** Where the server is: a Streamable HTTP endpoint, or a command to start that speaks MCP on stdio. */
export type CliTarget = { kind: 'http'; url: URL } | { kind: 'stdio'; command: string; args: string[] };

/** A parsed command line. */
export interface CliInvocation {
  command: CliCommand;
  target: CliTarget;
  /** The tool (`call`), URI (`read`), prompt (`prompt`) or event type (`events`, optional: without it, the catalog). */
  name?: string;
  /** `--arg key=value`, in order. */
  args: [string, string][];
  /** `--json '{…}'`: all arguments at once (`--arg` wins on the same key). */
  json?: Record<string, unknown>;
  /** `--answer key=…`: answers to elicitations, by input request key. */
  answers: Map<string, string>;
  /** `--plain`: NDJSON progress and JSON results even on a terminal. */
  plain: boolean;
  /** `--verbose`: show the stdio server's stderr. */
  verbose: boolean;
  /** `--timeout ms`: longest wait for a response (reset by progress). */
  timeoutMs?: number;
  /** `--env NAME=value` and `--env NAME` (the CLI's own value), in order: passed to a stdio server. */
  env: [string, string | undefined][];
  /** `--inherit-env`: a stdio server gets the CLI's whole environment, not the minimal one. */
  inheritEnv: boolean;
  /** `events --follow`: keep following the type (a push stream, or polling) until interrupted. */
  follow: boolean;
  /** `events --poll`: follow by polling even when the type offers push. */
  poll: boolean;
  /** `events --cursor c`: where to start (default: now). */
  cursor?: string;
}

/** `--help` or `--version` instead of a command. */
export type CliRequest = { kind: 'run'; invocation: CliInvocation } | { kind: 'help' } | { kind: 'version' };

const COMMANDS: ReadonlySet<string> = new Set(['tools', 'call', 'read', 'prompt', 'events']);
const NEEDS_NAME: Record<CliCommand, string | undefined> = {
  tools: undefined,
  call: '<tool>',
  read: '<uri>',
  prompt: '<name>',
  events: undefined,
};
/** Commands whose name is optional. */
const OPTIONAL_NAME: ReadonlySet<CliCommand> = new Set(['events']);
const APPLICABLE_OPTIONS: Record<CliCommand, string[]> = {
  tools: [],
  call: ['--arg', '--json', '--answer'],
  read: ['--answer'],
  prompt: ['--arg', '--json', '--answer'],
  events: ['--arg', '--json', '--follow', '--poll', '--cursor'],
};
const VALUE_OPTIONS = new Set(['--stdio', '--arg', '--json', '--answer', '--timeout', '--env', '--cursor']);
const FLAG_OPTIONS = new Set([
  '--plain',
  '--verbose',
  '--inherit-env',
  '--help',
  '-h',
  '--version',
  '--follow',
  '--poll',
]);
/** Options about the process `--stdio` starts. */
const STDIO_OPTIONS = ['--env', '--inherit-env'];

/**
 * Reads `nest-mcp <command> <target> [name] [options]`. Options may come anywhere, as `--opt value` or
 * `--opt=value`; `--` ends them. Mistakes throw `CliError.usage` (exit code 2).
 */
export function parseCliArguments(argv: readonly string[]): CliRequest {
  const positional: string[] = [];
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      positional.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const name = equals > 0 ? token.slice(0, equals) : token;
    if (FLAG_OPTIONS.has(name)) {
      if (equals > 0) throw CliError.usage(`${name} takes no value`);
      flags.add(name);
      continue;
    }
    if (!VALUE_OPTIONS.has(name)) throw CliError.usage(`unknown option ${name}`);
    const value = equals > 0 ? token.slice(equals + 1) : argv[++i];
    if (value === undefined) throw CliError.usage(`${name} needs a value`);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  if (flags.has('--help') || flags.has('-h')) return { kind: 'help' };
  if (flags.has('--version')) return { kind: 'version' };

  const command = positional.shift();
  if (command === undefined) throw CliError.usage('missing command: tools, call, read, prompt or events');
  if (!COMMANDS.has(command))
    throw CliError.usage(`unknown command "${command}": expected tools, call, read, prompt or events`);
  const target = readTarget(positional, single(values, '--stdio'));
  const nameLabel = NEEDS_NAME[command as CliCommand];
  const name = nameLabel || OPTIONAL_NAME.has(command as CliCommand) ? positional.shift() : undefined;
  if (nameLabel && name === undefined) throw CliError.usage(`${command} needs ${nameLabel}`);
  if (positional.length > 0) throw CliError.usage(`unexpected argument "${positional[0]}"`);
  const applicable = APPLICABLE_OPTIONS[command as CliCommand];
  for (const option of ['--arg', '--json', '--answer', '--cursor', '--follow', '--poll']) {
    if ((values.has(option) || flags.has(option)) && !applicable.includes(option))
      throw CliError.usage(`${option} does not apply to ${command}`);
  }
  if (command === 'events' && name === undefined) {
    for (const option of ['--arg', '--json', '--cursor', '--follow', '--poll']) {
      if (values.has(option) || flags.has(option))
        throw CliError.usage(`${option} needs an event type: nest-mcp events <target> <name> ${option}`);
    }
  }
  if (flags.has('--poll') && !flags.has('--follow')) throw CliError.usage('--poll applies with --follow');
  for (const option of STDIO_OPTIONS) {
    if (target.kind !== 'stdio' && (values.has(option) || flags.has(option)))
      throw CliError.usage(`${option} applies to --stdio targets only`);
  }

  return {
    kind: 'run',
    invocation: {
      command: command as CliCommand,
      target,
      name,
      args: (values.get('--arg') ?? []).map((pair) => splitPair(pair, '--arg')),
      json: readJson(single(values, '--json')),
      answers: new Map((values.get('--answer') ?? []).map((pair) => splitPair(pair, '--answer'))),
      plain: flags.has('--plain'),
      verbose: flags.has('--verbose'),
      timeoutMs: readTimeout(single(values, '--timeout')),
      env: (values.get('--env') ?? []).map(readEnv),
      inheritEnv: flags.has('--inherit-env'),
      follow: flags.has('--follow'),
      poll: flags.has('--poll'),
      cursor: single(values, '--cursor'),
    },
  };
}

function readTarget(positional: string[], stdio: string | undefined): CliTarget {
  if (stdio !== undefined) {
    const [command, ...args] = splitShellWords(stdio);
    if (!command) throw CliError.usage('--stdio needs a command, e.g. --stdio "node dist/main.js"');
    return { kind: 'stdio', command, args };
  }
  const first = positional.shift();
  if (first === undefined) throw CliError.usage('missing target: an http(s) URL or --stdio "<command>"');
  let url: URL;
  try {
    url = new URL(first);
  } catch {
    throw CliError.usage(`"${first}" is not a URL; give an http(s) URL or --stdio "<command>"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw CliError.usage(`unsupported URL scheme ${url.protocol}; use http(s) or --stdio`);
  return { kind: 'http', url };
}

function single(values: Map<string, string[]>, name: string): string | undefined {
  const given = values.get(name);
  if (given && given.length > 1) throw CliError.usage(`${name} may be given once`);
  return given?.[0];
}

function splitPair(pair: string, option: string): [string, string] {
  const equals = pair.indexOf('=');
  if (equals <= 0) throw CliError.usage(`${option} expects key=value, got "${pair}"`);
  return [pair.slice(0, equals), pair.slice(equals + 1)];
}

/** `NAME=value` sets a variable; a bare `NAME` passes the CLI's own value on. */
function readEnv(entry: string): [string, string | undefined] {
  const equals = entry.indexOf('=');
  const name = equals < 0 ? entry : entry.slice(0, equals);
  if (name === '') throw CliError.usage(`--env expects NAME=value or NAME, got "${entry}"`);
  return [name, equals < 0 ? undefined : entry.slice(equals + 1)];
}

function readJson(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw CliError.usage('--json is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw CliError.usage('--json must be a JSON object');
  return value as Record<string, unknown>;
}

function readTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw CliError.usage('--timeout must be a positive number of milliseconds');
  return value;
}
