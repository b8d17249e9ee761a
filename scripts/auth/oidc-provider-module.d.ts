/**
 * The few parts of `oidc-provider` (a dev dependency that ships no type declarations) that
 * `scripts/auth/authorization-server.ts` uses. Loose on purpose: the configuration is checked by oidc-provider itself at
 * construction.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** oidc-provider's configuration object (see its documentation); validated by the constructor. */
  export type Configuration = Record<string, unknown>;

  /** A registered client, as oidc-provider hands it to configuration callbacks. */
  export interface Client {
    readonly clientId: string;
  }

  /** An OAuth authorization server (a Koa application). */
  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    /** The Node request listener of the Koa application. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  /** The OAuth error classes oidc-provider maps to error responses. */
  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidScope: new (description?: string, scope?: string) => Error;
  };

  export default Provider;
}
