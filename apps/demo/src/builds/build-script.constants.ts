/** The packages scripts/build.mjs builds (libs/<package>/src). */
export const BUILDABLE_PACKAGES = ['mcp', 'cli', 'mcp-redis'] as const;

/** One of `BUILDABLE_PACKAGES`. */
export type BuildablePackage = (typeof BUILDABLE_PACKAGES)[number];

/** The build script, from the repository's root. */
export const BUILD_SCRIPT = 'scripts/build.mjs';
