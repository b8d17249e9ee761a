/** A loopback port nothing listens on right now (see free-port.mjs). */
export function freePort(): Promise<number>;
