/** A stylesheet imported for its side effect: esbuild bundles it into the page's one stylesheet. */
declare module '*.css';
