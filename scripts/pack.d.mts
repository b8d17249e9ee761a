/** Types of scripts/pack.mjs, for the tests that import it. */

/** A package of the repository and the packages it is compiled against. */
export interface ReleasePackage {
  name: string;
  dir: string;
  dependsOn: string[];
}

/** One packed tarball. */
export interface PackedPackage {
  name: string;
  version: string;
  /** Absolute path of the .tgz. */
  tarball: string;
  /** npm's integrity of the tarball (sha512). */
  integrity: string;
  /** The files it holds, paths inside the package, sorted. */
  files: string[];
}

export const DEFAULT_OUT_DIR: string;
export const PACKAGES: readonly ReleasePackage[];
export const ALLOWED_FILE: RegExp;
export const FORBIDDEN_FILE: RegExp;
export function packInputs(): string[];
export function packAll(options?: { outDir?: string; log?: (line: string) => void }): Promise<PackedPackage[]>;
