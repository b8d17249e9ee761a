/** A version of a service on its way to production. */
export interface Release {
  service: string;
  version: string;
}
