import type { Env } from "./agents/env.js";
import { pageHtml } from "./page.js";

export { Assistant } from "./agents/assistant.js";
export { Importer } from "./agents/importer.js";
export { Researcher } from "./agents/researcher.js";
export { Summarizer } from "./agents/summarizer.js";

/** One built file of the React page (web/), keyed by its URL path in `WEB_ASSETS` (see web/build.mjs). */
type WebAsset = { contentType: string; body: string; encoding?: "base64" };

/**
 * `WEB_ASSETS`: the built React page, a JSON binding that `pnpm demo` and the browser test pass in (web/build.mjs).
 * Without it (tests that do not build the page) `/` serves the plain page of src/page.ts.
 */
type PageEnv = { WEB_ASSETS?: Record<string, WebAsset> };

/** `/` and `/assets/*`: the React page when it was built and passed in, else the plain page. */
function servePage(url: URL, env: PageEnv): Response | null {
  const assets = env.WEB_ASSETS;
  if (url.pathname === "/") {
    const index = assets?.["/index.html"];
    const html = index?.body ?? pageHtml;
    return new Response(html, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" },
    });
  }
  if (!url.pathname.startsWith("/assets/")) return null;
  const asset = assets && Object.hasOwn(assets, url.pathname) ? assets[url.pathname] : undefined;
  if (!asset) return new Response("Not found", { status: 404 });
  const body =
    asset.encoding === "base64"
      ? Uint8Array.from(atob(asset.body), (character) => character.charCodeAt(0))
      : asset.body;
  // Built asset names carry a content hash.
  return new Response(body, {
    headers: { "content-type": asset.contentType, "cache-control": "public, max-age=31536000, immutable" },
  });
}

/** Routes: `/` the page (and `/assets/*`); `/agents/assistant/<name>/…` the Assistant object named `<name>`. */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "GET" || request.method === "HEAD") {
      const page = servePage(url, env as Env & PageEnv);
      if (page) return page;
    }
    const match = /^\/agents\/assistant\/([^/]+)(?:\/.*)?$/.exec(url.pathname);
    if (match?.[1]) {
      const name = decodeURIComponent(match[1]);
      return env.ASSISTANT.get(env.ASSISTANT.idFromName(name)).fetch(request);
    }
    return new Response("Not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
