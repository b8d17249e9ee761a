import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges a webhook never reaches (SEP-3415, "SSRF prevention": the IANA IPv4 Special-Purpose Address Registry):
 * "this network", private, shared (CGNAT), loopback, link-local (cloud metadata), IETF protocol assignments,
 * documentation, benchmarking, multicast, reserved and broadcast.
 */
const BLOCKED_V4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * IPv6: only global unicast (`2000::/3`) is reachable, and within it not the IETF protocol assignments, documentation
 * and 6to4 ranges. Everything else — loopback, unspecified, IPv4-mapped, NAT64, unique local (`fc00::/7`),
 * link-local, multicast — lies outside `2000::/3`.
 */
const GLOBAL_V6: [string, number] = ['2000::', 3];
const BLOCKED_V6: ReadonlyArray<[string, number]> = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
];

const blockedV4 = new BlockList();
for (const [network, prefix] of BLOCKED_V4) blockedV4.addSubnet(network, prefix, 'ipv4');
const globalV6 = new BlockList();
globalV6.addSubnet(GLOBAL_V6[0], GLOBAL_V6[1], 'ipv6');
const blockedV6 = new BlockList();
for (const [network, prefix] of BLOCKED_V6) blockedV6.addSubnet(network, prefix, 'ipv6');

/** The one loopback address the development switch `events.webhooks.allowInsecureLoopback` lets through. */
export const DEVELOPMENT_LOOPBACK = '127.0.0.1';

/**
 * Whether a webhook may connect to `address` (an IP literal): a globally routable address, or exactly 127.0.0.1 when
 * `allowLoopback` (the development switch) is on. Anything that is not an IP address is refused.
 */
export function isDeliverableAddress(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address);
  if (family === 4) return !blockedV4.check(address, 'ipv4') || (allowLoopback && address === DEVELOPMENT_LOOPBACK);
  if (family === 6) return globalV6.check(address, 'ipv6') && !blockedV6.check(address, 'ipv6');
  return false;
}
