// What the single executable carries in place of files. Installed with npm,
// ncclx finds its version in package.json and its worker threads' scripts
// beside its modules; inside the single executable (scripts/build-exe.mjs)
// there are no files beside the code, so its entry (src/sea.ts) registers the
// version and the workers' bundled sources here before the CLI starts.

export interface Bundle {
  version: string;
  /** The source of each worker thread's script, a CommonJS bundle run with `new Worker(source, { eval: true })`. */
  workers: { log: () => string; compare: () => string };
}

let bundle: Bundle | null = null;

/** Called once by the single executable's entry, before anything else runs. */
export function setBundle(b: Bundle): void {
  bundle = b;
}

/** The single executable's bundle; null when ncclx runs from its files (npm, a clone). */
export function currentBundle(): Bundle | null {
  return bundle;
}
