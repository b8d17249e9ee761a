import { describe, expect, it } from 'vitest';
import { CliError, CliExitCode } from './cli.error.js';
import { ScriptedResponder } from './scripted.responder.js';

const FORM = {
  mode: 'form' as const,
  message: 'Run\n deploy?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' }, note: { type: 'string' } } },
};

describe('ScriptedResponder', () => {
  it('accepts with a JSON object, or answers with an action', async () => {
    const responder = new ScriptedResponder(
      new Map([
        ['a', '{"confirm":true}'],
        ['b', 'decline'],
        ['c', 'cancel'],
        ['d', 'accept'],
      ]),
    );
    expect(await responder.answer('a', FORM)).toEqual({ action: 'accept', content: { confirm: true } });
    expect(await responder.answer('b', FORM)).toEqual({ action: 'decline' });
    expect(await responder.answer('c', FORM)).toEqual({ action: 'cancel' });
    expect(await responder.answer('d', { mode: 'url', message: 'Sign in', url: 'https://x.test' })).toEqual({
      action: 'accept',
      content: {},
    });
  });

  it('names the missing --answer, with an example built from the form', async () => {
    const error = await new ScriptedResponder(new Map()).answer('confirm', FORM).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(
      `input required: "confirm" (Run deploy?); pass --answer confirm='{"confirm":"…","note":"…"}'`,
    );
    expect((error as CliError).exitCode).toBe(CliExitCode.Failed);
  });

  it('names the link of a URL elicitation with its real host, and declines a link that is not http(s)', async () => {
    const url = { mode: 'url' as const, message: 'Sign in', url: 'https://good.example@аррӏе.com/login' };
    await expect(new ScriptedResponder(new Map()).answer('signin', url)).rejects.toThrow(
      'input required: "signin" (Sign in); open https://good.example@xn--80ak6aa92e.com/login (host: xn--80ak6aa92e.com; "good.example@" is a user name, not the host), then pass --answer signin=accept',
    );
    const script = { mode: 'url' as const, message: 'Continue', url: 'javascript:alert(1)' };
    expect(await new ScriptedResponder(new Map([['s', 'accept']])).answer('s', script)).toEqual({ action: 'decline' });
    expect(await new ScriptedResponder(new Map()).answer('s', script)).toEqual({ action: 'decline' });
  });

  it('fails instead of sending a refused answer again', async () => {
    const responder = new ScriptedResponder(new Map([['confirm', '{"confirm":"yes"}']]));
    await responder.answer('confirm', FORM);
    await expect(responder.answer('confirm', FORM)).rejects.toThrow(
      'the server did not accept the answer to "confirm" (Run deploy?)',
    );
  });

  it('refuses an answer that is neither an object nor an action', async () => {
    await expect(new ScriptedResponder(new Map([['k', '[1]']])).answer('k', FORM)).rejects.toThrow(
      '--answer k must be a JSON object',
    );
    await expect(new ScriptedResponder(new Map([['k', 'nope']])).answer('k', FORM)).rejects.toThrow(
      /must be a JSON object, or accept/,
    );
  });
});
