import { useState } from 'preact/hooks';
import { planSignIn, registerClient, registeredClient, startSignIn } from '../auth/oauth.flow.js';
import type { Playground } from '../app/playground.js';
import type { AuthRequiredError } from '../protocol/mcp.errors.js';

/**
 * The endpoint wants a token: sign in through the authorization server its Protected Resource Metadata names
 * (authorization code + PKCE in this browser), or paste a token.
 */
export function SignIn({ playground, challenge }: { playground: Playground; challenge: AuthRequiredError }) {
  const [clientId, setClientId] = useState(playground.config.clientId ?? '');
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const signIn = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      const scopes = playground.config.scopes ?? (challenge.scope ? challenge.scope.split(' ') : undefined);
      const plan = await planSignIn(challenge.resourceMetadata, scopes);
      const id = clientId || registeredClient(plan) || (await registerClient(plan));
      await startSignIn(plan, id);
    } catch (error) {
      setProblem((error as Error).message);
      setBusy(false);
    }
  };
  return (
    <section class="sign-in" data-testid="sign-in">
      <h2>Sign in</h2>
      <p>
        {challenge.message} (HTTP {challenge.httpStatus}
        {challenge.bearerError ? `, ${challenge.bearerError}` : ''}).
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void signIn();
        }}
      >
        <div class="field">
          <label for="client-id">OAuth client id</label>
          <input
            id="client-id"
            value={clientId}
            placeholder="registered dynamically when left empty"
            onInput={(event) => setClientId(event.currentTarget.value)}
          />
          <small class="hint">A public client whose redirect URI is {location.origin + location.pathname}</small>
        </div>
        <button type="submit" class="primary" disabled={busy} data-testid="sign-in-button">
          Sign in with the authorization server
        </button>
      </form>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          playground.token.set(pasted.trim());
          void playground.refresh();
        }}
      >
        <div class="field">
          <label for="token">Or paste an access token</label>
          <input
            id="token"
            type="password"
            autocomplete="off"
            value={pasted}
            onInput={(event) => setPasted(event.currentTarget.value)}
          />
        </div>
        <button type="submit" disabled={pasted.trim() === ''}>
          Use this token
        </button>
      </form>
      {problem && <p class="problem">{problem}</p>}
    </section>
  );
}
