import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { AUTH_BENCH_RESOURCE } from '../../servers/shared/auth-bench.constants.js';
import type { AuthAdapterResults, AuthResults } from '../auth-result.interface.js';
import type { BenchOptions } from '../options.js';
import { log } from '../progress-log.js';
import { measurePair } from '../paired.js';
import { ServerProcess } from '../server-process.js';
import { baselineBuild } from '../servers.js';
import { toolCall, type WireRequest } from '../wire.js';

const ADAPTERS = ['express', 'fastify'] as const;
const ALGORITHM = 'RS256';
const SCRIPT = 'nest-mcp-auth.server.js';

/** A signing key, its JWKS on a loopback HTTP server (the issuer), and one access token for the bench resource. */
async function startIssuer(): Promise<{ issuer: string; jwksUri: string; token: string; close(): Promise<void> }> {
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(publicKey)), kid: 'bench-key', alg: ALGORITHM, use: 'sig' }],
  });
  const server: Server = createServer((request, response) => {
    if (request.url === '/jwks') response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A token shaped like an authorization server's: subject, client, scopes, an hour of validity.
  const token = await new SignJWT({ scope: 'ops:read ops:write', client_id: 'bench-client' })
    .setProtectedHeader({ alg: ALGORITHM, kid: 'bench-key', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject('bench-user')
    .setAudience(AUTH_BENCH_RESOURCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .setJti('bench-token')
    .sign(privateKey);
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    token,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Checks that the server answers `echo` (with auth: only with the token) before it is measured. */
async function verifyServer(server: ServerProcess, request: WireRequest, withAuth: boolean): Promise<void> {
  const url = server.url('/mcp');
  const answer = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const text = await answer.text();
  if (answer.status !== 200 || !text.includes('"hello"'))
    throw new Error(`${server.label}: echo answered ${answer.status}: ${text.slice(0, 300)}`);
  if (withAuth) {
    const { authorization: _omitted, ...anonymous } = request.headers;
    const refused = await fetch(url, { method: 'POST', headers: anonymous, body: request.body });
    await refused.text();
    if (refused.status !== 401)
      throw new Error(`${server.label}: a call without a token answered ${refused.status}, not 401`);
  }
}

/**
 * The `auth` workload (issue #17): the cost of authorization per call. On each adapter, the same nest-mcp server with
 * `auth` (RS256 JWTs, keys from a JWKS fetched once) and without it receive the same `echo` calls, bearer header
 * included, in interleaved rounds (with, without, without, with, …); the ratio of their throughputs and the difference
 * of their CPU per call are the cost of the bearer check and the JWT verification. Plus the verifier alone, in a loop.
 */
export async function runAuth(options: BenchOptions): Promise<AuthResults> {
  const issuer = await startIssuer();
  const request = toolCall(1, 'echo', { text: 'hello' });
  request.headers = { ...request.headers, authorization: `Bearer ${issuer.token}` };
  const results: AuthResults = {
    algorithm: ALGORITHM,
    concurrencies: options.concurrencies,
    adapters: {},
    tokenChars: issuer.token.length,
  };
  try {
    for (const adapter of ADAPTERS) {
      const withAuth = await ServerProcess.start(`nest-mcp-${adapter} with auth`, {
        script: SCRIPT,
        args: ['--adapter', adapter, '--issuer', issuer.issuer, '--jwks-uri', issuer.jwksUri],
      });
      const withoutAuth = await ServerProcess.start(`nest-mcp-${adapter} without auth`, {
        script: SCRIPT,
        args: ['--adapter', adapter],
      });
      try {
        await verifyServer(withAuth, request, true);
        await verifyServer(withoutAuth, request, false);
        if (results.verifyUs === undefined) {
          const micro = await withAuth.request<{ verifyUs: number }>('verify-micro', {
            token: issuer.token,
            iterations: options.mode === 'quick' ? 2_000 : 20_000,
          });
          results.verifyUs = micro.verifyUs;
          log(`auth: JwtTokenVerifier.verify ${micro.verifyUs.toFixed(1)} µs per call (${ALGORITHM})`);
        }
        const pair = await measurePair(
          `auth (${adapter})`,
          { subject: withAuth, baseline: withoutAuth },
          { subject: 'with', baseline: 'without' },
          request,
          options,
        );
        const adapterResults: AuthAdapterResults = {
          rounds: { withAuth: pair.rounds.subject, withoutAuth: pair.rounds.baseline },
          medians: { withAuth: pair.medians.subject, withoutAuth: pair.medians.baseline },
          cost: pair.cost,
        };
        results.adapters[adapter] = adapterResults;
        const before = baselineBuild(SCRIPT);
        if (before) {
          const authArgs = ['--adapter', adapter, '--issuer', issuer.issuer, '--jwks-uri', issuer.jwksUri];
          const baselineAuth = await ServerProcess.start(`nest-mcp ${before.commit} ${adapter} with auth`, {
            script: before.script,
            args: authArgs,
          });
          try {
            await verifyServer(baselineAuth, request, true);
            const labels = { subject: 'this', baseline: before.commit };
            const against = await measurePair(
              `auth (${adapter}) against ${before.commit}`,
              { subject: withAuth, baseline: baselineAuth },
              labels,
              request,
              options,
            );
            adapterResults.againstBaseline = { commit: before.commit, cost: against.cost };
          } finally {
            await baselineAuth.stop();
          }
        }
      } finally {
        await Promise.all([withAuth.stop(), withoutAuth.stop()]);
      }
    }
  } finally {
    await issuer.close();
  }
  return results;
}

/** The workload's results as a Markdown table (printed after the run; docs/performance.md "Authorization"). */
export function renderAuth(results: AuthResults): string {
  const lines = [
    `Authorization: ${results.algorithm} JWT (${results.tokenChars} characters) on every call; JwtTokenVerifier.verify alone ` +
      `${results.verifyUs === undefined ? 'not measured' : `${results.verifyUs.toFixed(1)} µs`} per call`,
    '',
    '| adapter | concurrency | req/s with auth | req/s without | ratio | p50 with / without (ms) | extra CPU per call |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [adapter, adapterResults] of Object.entries(results.adapters)) {
    for (const concurrency of results.concurrencies.map(String)) {
      const withMedian = adapterResults.medians.withAuth[concurrency];
      const withoutMedian = adapterResults.medians.withoutAuth[concurrency];
      const cost = adapterResults.cost[concurrency];
      if (!withMedian || !withoutMedian || !cost) continue;
      lines.push(
        `| ${adapter} | ${concurrency} | ${Math.round(withMedian.rps)} | ${Math.round(withoutMedian.rps)} | ${cost.rpsRatio.toFixed(2)} | ` +
          `${withMedian.p50Ms.toFixed(2)} / ${withoutMedian.p50Ms.toFixed(2)} | ${cost.extraCpuUsPerCall.toFixed(0)} µs |`,
      );
    }
  }
  const against = Object.entries(results.adapters).filter(([, adapterResults]) => adapterResults.againstBaseline);
  if (against.length > 0) {
    lines.push(
      '',
      `With auth, this build against ${against[0][1].againstBaseline!.commit} (the same token and calls, interleaved):`,
      '',
    );
    lines.push(
      '| adapter | concurrency | req/s ratio | p50 ratio | CPU per call this − baseline |',
      '|---|---:|---:|---:|---:|',
    );
    for (const [adapter, adapterResults] of against) {
      for (const [concurrency, cost] of Object.entries(adapterResults.againstBaseline!.cost)) {
        lines.push(
          `| ${adapter} | ${concurrency} | ${cost.rpsRatio.toFixed(2)} | ${cost.p50Ratio.toFixed(2)} | ${cost.extraCpuUsPerCall.toFixed(0)} µs |`,
        );
      }
    }
  }
  return lines.join('\n');
}
