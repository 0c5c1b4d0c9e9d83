/** One built file, as `readWebAssets` reads it. */
export type WebAsset = { contentType: string; body: string; encoding?: "base64" };
/** The built page keyed by URL path (`/index.html`, `/assets/…`). */
export type WebAssets = Record<string, WebAsset>;

export const WEB_ROOT: string;
export const WEB_CONFIG: string;
export const WEB_BUILD_DIRECTORY: string;
export const WEB_ASSETS_BINDING: "WEB_ASSETS";

export function buildWebPage(options?: {
  outDir?: string;
  logLevel?: "info" | "warn" | "error" | "silent";
}): Promise<string>;
/** The built files of `directory` by URL path; `null` without an index.html (for the former `WEB_ASSETS` binding). */
export function readWebAssets(directory?: string): Promise<WebAssets | null>;
/** The folder a `readWebAssets` result was read from. */
export function webAssetsDirectory(assets: WebAssets): string | undefined;
