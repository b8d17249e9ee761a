import { Store } from '../app/store.js';

const TOKEN_KEY = 'nest-mcp-playground:token';

/** The bearer token of this tab (signed in or pasted), kept in sessionStorage so that a reload keeps it. */
export class TokenStore extends Store<string | undefined> {
  constructor() {
    super(sessionStorage.getItem(TOKEN_KEY) ?? undefined);
  }

  override set(token: string | undefined): void {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
    super.set(token);
  }
}
