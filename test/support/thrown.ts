/** The error `call` throws, as the type the test expects; fails the test when `call` returns instead. */
export function thrown<E = Error>(call: () => unknown): E {
  try {
    call();
  } catch (error) {
    return error as E;
  }
  throw new Error('expected the call to throw');
}
