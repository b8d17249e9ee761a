import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { buildServerEnvironment, MINIMAL_SERVER_ENVIRONMENT } from './server-environment.util.js';

const SHELL_ENV = {
  PATH: '/usr/bin',
  HOME: '/home/ada',
  USER: 'ada',
  LOGNAME: 'ada',
  SHELL: '/bin/bash',
  TERM: 'xterm',
  LANG: 'de_DE.UTF-8',
  LC_ALL: 'de_DE.UTF-8',
  LC_CTYPE: 'UTF-8',
  TZ: 'Europe/Berlin',
  TMPDIR: '/tmp',
  AWS_SECRET_ACCESS_KEY: 'aws',
  GITHUB_TOKEN: 'ghp',
  OPENAI_API_KEY: 'sk',
  NODE_OPTIONS: '--require ./evil.js',
  BASH_FUNC_x: '() { echo hi; }',
};

describe.runIf(process.platform !== 'win32')('buildServerEnvironment', () => {
  it('passes only the minimal environment by default: no secrets, no NODE_OPTIONS', () => {
    const env = buildServerEnvironment(SHELL_ENV, { inherit: false, entries: [] });
    expect(Object.keys(env).sort()).toEqual([
      'HOME',
      'LANG',
      'LC_ALL',
      'LC_CTYPE',
      'LOGNAME',
      'PATH',
      'SHELL',
      'TERM',
      'TMPDIR',
      'TZ',
      'USER',
    ]);
    expect(env.PATH).toBe('/usr/bin');
  });

  it('includes everything the official transport adds anyway, so what the server sees is exactly this', () => {
    for (const name of DEFAULT_INHERITED_ENV_VARS) expect(MINIMAL_SERVER_ENVIRONMENT).toContain(name);
    expect(MINIMAL_SERVER_ENVIRONMENT).not.toContain('NODE_OPTIONS');
  });

  it('leaves out an exported shell function, as the official client does', () => {
    expect(
      buildServerEnvironment({ PATH: '() { :; }; echo pwned', HOME: '/h' }, { inherit: false, entries: [] }),
    ).toEqual({ HOME: '/h' });
  });

  it('adds what --env sets or names, in order; a named variable the CLI lacks stays unset', () => {
    const env = buildServerEnvironment(SHELL_ENV, {
      inherit: false,
      entries: [
        ['GITHUB_TOKEN', undefined],
        ['MODE', 'dev'],
        ['MISSING', undefined],
        ['MODE', 'prod'],
        ['PATH', '/opt/bin'],
      ],
    });
    expect(env).toMatchObject({ GITHUB_TOKEN: 'ghp', MODE: 'prod', PATH: '/opt/bin' });
    expect(env).not.toHaveProperty('MISSING');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  });

  it('passes everything with --inherit-env', () => {
    expect(buildServerEnvironment(SHELL_ENV, { inherit: true, entries: [['EXTRA', '1']] })).toEqual({
      ...SHELL_ENV,
      EXTRA: '1',
    });
  });
});
