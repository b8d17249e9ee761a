type Method = (...args: unknown[]) => unknown;

/**
 * `fn` carrying the name and every metadata key of `method`: Nest's guards, interceptors and `Reflector` read them
 * from the handler they are given, and interceptors and filters name it by `context.getHandler().name`. For the
 * functions the library hands Nest in place of a handler's method (stand-ins, checks, wrappers).
 */
export function carryingMetadata<F extends Method>(method: Method, fn: F): F {
  for (const key of Reflect.getMetadataKeys(method) as unknown[])
    Reflect.defineMetadata(key, Reflect.getMetadata(key, method), fn);
  Object.defineProperty(fn, 'name', { value: method.name });
  return fn;
}
