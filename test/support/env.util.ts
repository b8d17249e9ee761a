/**
 * Sets the environment variables of `values` (an `undefined` value removes the variable) for code that reads them at
 * import time, as an application does, and returns what puts the previous values back.
 */
export function setEnv(values: Readonly<Record<string, string | undefined>>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  assign(values);
  return () => assign(previous);
}

function assign(values: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
