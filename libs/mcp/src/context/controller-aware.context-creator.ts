import type { ExternalContextCreator, ModulesContainer } from '@nestjs/core';

/**
 * Nest's `ExternalContextCreator` as it is, except that it also finds the module of a controller. It looks for the
 * module of a handler's class among providers only, and without a module the guards, interceptors and pipes a
 * controller names by class (`@UseGuards(OnCallGuard)`) cannot be instantiated and are silently left out. Only the
 * public `getContextModuleKey` is overridden: every other member is the shared creator's (its caches included).
 */
export function controllerAwareContextCreator(
  creator: ExternalContextCreator,
  modules: ModulesContainer,
): ExternalContextCreator {
  const getContextModuleKey = (type: Function | undefined): string => {
    const key = creator.getContextModuleKey(type);
    if (key || !type) return key;
    for (const [moduleKey, moduleRef] of modules.entries()) {
      if (moduleRef.controllers.has(type)) return moduleKey;
    }
    return '';
  };
  return Object.create(creator, { getContextModuleKey: { value: getContextModuleKey } }) as ExternalContextCreator;
}
