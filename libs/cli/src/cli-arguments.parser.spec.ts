import { describe, expect, it } from 'vitest';
import { parseCliArguments } from './cli-arguments.parser.js';
import { CliError, CliExitCode } from './cli.error.js';

function invocation(argv: string[]) {
  const request = parseCliArguments(argv);
  if (request.kind !== 'run') throw new Error(`expected a command, got ${request.kind}`);
  return request.invocation;
}

function usageError(argv: string[]): string {
  try {
    parseCliArguments(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(CliExitCode.Usage);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('parseCliArguments', () => {
  it('reads a call on an HTTP target with typed options anywhere, in both spellings', () => {
    const parsed = invocation([
      'call',
      '--arg',
      'n=3',
      'http://127.0.0.1:3000/mcp',
      '--plain',
      'count',
      '--arg=note=a=b',
      '--answer',
      'confirm={"ok":true}',
      '--timeout=5000',
    ]);
    expect(parsed).toMatchObject({
      command: 'call',
      name: 'count',
      args: [
        ['n', '3'],
        ['note', 'a=b'],
      ],
      plain: true,
      verbose: false,
      timeoutMs: 5000,
    });
    expect(parsed.target).toEqual({ kind: 'http', url: new URL('http://127.0.0.1:3000/mcp') });
    expect([...parsed.answers]).toEqual([['confirm', '{"ok":true}']]);
  });

  it('reads a stdio target, split like a shell would', () => {
    const parsed = invocation(['tools', '--stdio', `node "dist/my server.js" --flag`]);
    expect(parsed.target).toEqual({ kind: 'stdio', command: 'node', args: ['dist/my server.js', '--flag'] });
    expect(invocation(['read', '--stdio', 'srv', 'fixture://readme']).name).toBe('fixture://readme');
  });

  it('reads --env and --inherit-env for a stdio target', () => {
    const parsed = invocation([
      'call',
      '--stdio',
      'srv',
      't',
      '--env',
      'API_KEY',
      '--env=MODE=a=b',
      '--env',
      'EMPTY=',
      '--inherit-env',
    ]);
    expect(parsed.env).toEqual([
      ['API_KEY', undefined],
      ['MODE', 'a=b'],
      ['EMPTY', ''],
    ]);
    expect(parsed.inheritEnv).toBe(true);
    expect(invocation(['tools', '--stdio', 'srv'])).toMatchObject({ env: [], inheritEnv: false });
  });

  it('reads --json as an object', () => {
    expect(invocation(['prompt', 'https://x.test/mcp', 'greet', '--json', '{"who":"Ada"}']).json).toEqual({
      who: 'Ada',
    });
  });

  it('answers --help and --version before anything else', () => {
    expect(parseCliArguments(['call', '--help'])).toEqual({ kind: 'help' });
    expect(parseCliArguments(['--version'])).toEqual({ kind: 'version' });
  });

  it.each([
    [[], /missing command/],
    [['frob'], /unknown command "frob"/],
    [['tools'], /missing target/],
    [['tools', 'ftp://x'], /unsupported URL scheme/],
    [['tools', 'localhost'], /is not a URL/],
    [['call', 'http://x.test/mcp'], /call needs <tool>/],
    [['tools', 'http://x.test/mcp', 'extra'], /unexpected argument "extra"/],
    [['tools', 'http://x.test/mcp', '--arg', 'a=1'], /--arg does not apply to tools/],
    [['read', 'http://x.test/mcp', 'u://x', '--json', '{}'], /--json does not apply to read/],
    [['call', 'http://x.test/mcp', 't', '--arg', 'novalue'], /--arg expects key=value/],
    [['call', 'http://x.test/mcp', 't', '--json', '[1]'], /--json must be a JSON object/],
    [['call', 'http://x.test/mcp', 't', '--json', '{'], /--json is not valid JSON/],
    [['call', 'http://x.test/mcp', 't', '--timeout', '-1'], /--timeout must be a positive/],
    [['call', 'http://x.test/mcp', 't', '--bogus'], /unknown option --bogus/],
    [['call', 'http://x.test/mcp', 't', '--arg'], /--arg needs a value/],
    [['call', '--stdio', '', 't'], /--stdio needs a command/],
    [['tools', '--stdio', 'a', '--stdio', 'b'], /--stdio may be given once/],
    [['tools', '--plain=yes', 'http://x.test'], /--plain takes no value/],
    [['tools', 'http://x.test/mcp', '--env', 'A=1'], /--env applies to --stdio targets only/],
    [['tools', 'http://x.test/mcp', '--inherit-env'], /--inherit-env applies to --stdio targets only/],
    [['tools', '--stdio', 'srv', '--env', '=1'], /--env expects NAME=value or NAME, got "=1"/],
  ])('refuses %j', (argv, message) => {
    expect(usageError(argv as string[])).toMatch(message);
  });
});
