// Types of ./faults.mjs (shared by in-process tests and the CLI launcher ./ncclx.mjs).
export declare const faultsFile: (dir: string) => string;
export declare function faultsFor(dir: string): Map<string, string> | null;
export declare function injectFaults(RootClass: { prototype: { read(p: string, limit?: number): unknown } }): void;
