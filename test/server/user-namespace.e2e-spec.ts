import { describe, expect, it } from 'vitest';
import {
  namespacedArgv,
  requireUserNamespaces,
  runNamespaced,
  userNamespaceProblem,
} from '../support/user-namespace.js';

/**
 * The network namespaces of the Host/Origin and SSRF tests need no privilege (issue #29, item 1): they are user and
 * network namespaces (`unshare -rn`). Run as root, this test also makes one as uid 65534 (nobody, through
 * `setpriv`), as a user without any privilege would; run as another user, that user already is one.
 */
const ROOT_USER = process.getuid?.() === 0;
const NOBODY = 65534;

describe('user and network namespaces for the tests', () => {
  it('can be made here (otherwise this fails, saying how to allow them)', () => {
    expect(userNamespaceProblem()).toBeUndefined();
  });

  it(`are made without privilege: ${ROOT_USER ? 'as uid 65534 through setpriv' : 'as this (unprivileged) user'}, with a veth pair, own addresses and no route`, () => {
    requireUserNamespaces('user-namespace');
    const output = runNamespaced({
      ...(ROOT_USER && { asUser: NOBODY }),
      setup: [
        'ip link set lo up',
        'ip link add v0 type veth peer name v1',
        'ip addr add 198.18.0.1/30 dev v0',
        'ip link set v0 up',
        'ip link set v1 up',
      ],
      command: [
        'sh',
        '-c',
        'echo "uid $(cat /proc/self/uid_map | tr -s " " | cut -d" " -f3)"; ip -o -4 addr show; echo routes; ip route show table main | grep -v "^198.18.0.0/30"; true',
      ],
    });
    // The namespace's root is the outer user: nobody when run as root, else this user.
    expect(output).toContain(`uid ${ROOT_USER ? NOBODY : process.getuid?.()}`);
    expect(output).toMatch(/^\d+: lo +inet 127\.0\.0\.1\/8/m);
    expect(output).toMatch(/^\d+: v0 +inet 198\.18\.0\.1\/30/m);
    expect(output.split('routes\n')[1].trim()).toBe('');
  });

  it('the argv is unshare (after setpriv when a user is given), then the setup and the command through sh', () => {
    expect(
      namespacedArgv({ setup: ['ip link set lo up'], command: ['node', 'x.js'], mount: true, asUser: NOBODY }),
    ).toEqual([
      'setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      'unshare',
      '--user',
      '--map-root-user',
      '--net',
      '--mount',
      'sh',
      '-e',
      '-c',
      'ip link set lo up && exec "$@"',
      'sh',
      'node',
      'x.js',
    ]);
  });
});
