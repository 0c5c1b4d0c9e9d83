import type { BuildOptions } from "esbuild";

/** esbuild options for one Worker entry (add `outfile` / `write` as needed). */
export function workerBuildOptions(entry: string): BuildOptions;
