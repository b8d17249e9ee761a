/**
 * nginx as a round-robin balancer without affinity in front of N loopback ports, for the cluster tests. The one
 * implementation lives in scripts/cluster/nginx-balancer.mjs, which `npm run demo:cluster` uses too.
 */
export {
  freePort,
  nginxConfig,
  startNginx,
  waitForPort,
  type NginxBalancer,
} from '../../scripts/cluster/nginx-balancer.mjs';

/** The replica (`127.0.0.1:<port>`) that served a response through the balancer, from its `X-Upstream` header. */
export function upstreamOf(response: { headers: { get(name: string): string | null } }): string | undefined {
  return response.headers.get('x-upstream') ?? undefined;
}
