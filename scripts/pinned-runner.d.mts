/** Installs a pinned tool folder (tools/conformance-runner, tools/inspector-runner) with `npm ci` when its lockfile changed. */
export declare function ensurePinnedRunner(dir: string, log?: (message: string) => void): void;
