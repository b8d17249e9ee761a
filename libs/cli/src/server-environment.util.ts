import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';

/**
 * Beyond what the official client passes anyway (`DEFAULT_INHERITED_ENV_VARS`: PATH, HOME, USER, LOGNAME, SHELL,
 * TERM; on Windows APPDATA, SYSTEMROOT, TEMP…): locale, time zone and temporary folder, which change how a server
 * formats and where it writes. Never `NODE_OPTIONS` (it can load code into a Node server: `--require`, `--import`)
 * nor anything that may hold a secret.
 */
const EXTRA_NAMES =
  process.platform === 'win32' ? ['TMP', 'TEMP', 'LANG', 'TZ'] : ['LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'];

/** The variables a stdio server started by the CLI gets from the CLI's environment by default. */
export const MINIMAL_SERVER_ENVIRONMENT: readonly string[] = [
  ...new Set([...DEFAULT_INHERITED_ENV_VARS, ...EXTRA_NAMES]),
];

/** What the user asked to pass on top of the minimal environment. */
export interface ServerEnvironmentRequest {
  /** `--inherit-env`: the CLI's whole environment. */
  inherit: boolean;
  /** `--env NAME=value` (set) and `--env NAME` (pass the CLI's own value, if it has one), in order. */
  entries: readonly (readonly [string, string | undefined])[];
}

/**
 * The environment of a stdio server the CLI starts. By default only the variables in `MINIMAL_SERVER_ENVIRONMENT`
 * (a value starting with `()`, an exported shell function, is left out as the official client does), so secrets in
 * the user's shell (`AWS_*`, `GITHUB_TOKEN`, API keys) never reach a server nobody asked to give them to; `--env`
 * adds variables one by one and `--inherit-env` passes everything.
 *
 * @example buildServerEnvironment(process.env, { inherit: false, entries: [['API_KEY', undefined], ['MODE', 'dev']] })
 */
export function buildServerEnvironment(
  source: NodeJS.ProcessEnv,
  request: ServerEnvironmentRequest,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (request.inherit) {
    for (const [name, value] of Object.entries(source)) if (value !== undefined) env[name] = value;
  } else {
    for (const name of MINIMAL_SERVER_ENVIRONMENT) {
      const value = source[name];
      if (value !== undefined && !value.startsWith('()')) env[name] = value;
    }
  }
  for (const [name, value] of request.entries) {
    const given = value ?? source[name];
    if (given !== undefined) env[name] = given;
  }
  return env;
}
