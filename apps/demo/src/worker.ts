import type { Env } from "./agents/env.js";
import { pageHtml } from "./page.js";

export { Assistant } from "./agents/assistant.js";
export { Importer } from "./agents/importer.js";
export { Researcher } from "./agents/researcher.js";
export { Summarizer } from "./agents/summarizer.js";

/** Routes: `/` the page; `/agents/assistant/<name>/…` the Assistant object named `<name>`. */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/" && request.method === "GET") {
      return new Response(pageHtml, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    const match = /^\/agents\/assistant\/([^/]+)(?:\/.*)?$/.exec(url.pathname);
    if (match?.[1]) {
      const name = decodeURIComponent(match[1]);
      return env.ASSISTANT.get(env.ASSISTANT.idFromName(name)).fetch(request);
    }
    return new Response("Not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
