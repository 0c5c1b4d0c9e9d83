import { routeAgentToolRequest } from "@agent-tools/cloudflare";
import type { Env } from "./agents/env.js";
import { RELEASE_HOLD_PATH, releaseHold } from "./agents/test-holds.js";

export { Assistant } from "./agents/assistant.js";
export { Editor } from "./agents/editor.js";
export { Importer } from "./agents/importer.js";
export { PlainChatAssistant } from "./agents/plain-chat-assistant.js";
export { Researcher } from "./agents/researcher.js";
export { Summarizer } from "./agents/summarizer.js";
export { Writer } from "./agents/writer.js";

/** What `/` answers when there is no built page in the assets directory (`pnpm demo --no-web` before any build). */
const PAGE_NOT_BUILT =
  "agent-tools demo: the page is not built. Build it with `node web/build.mjs` in apps/demo (`pnpm demo` does, " +
  "unless --no-web), then reload. The agents answer at /agents/assistant/<name>/… all the same.\n";

/** The stock-`useChat` page (web/plain.html): wrangler.jsonc sends its file name to this Worker first. */
const PLAIN_PAGE_FILE = "/plain.html";
/** Where the static assets serve that page without a redirect. */
const PLAIN_PAGE_PATH = "/plain";

/**
 * Routes (wrangler.jsonc): `/agents/assistant/<name>/…` goes to the Assistant object named `<name>` (its event and
 * chat sockets, messages, runs, drill-in, …), `/agents/plain/<name>/…` to the PlainChatAssistant (the stock-`useChat`
 * page's); `/plain.html` is that page, served from `/plain`; anything else is the page, from the static assets (the
 * ASSETS binding). Requests for a file of the page are answered by the assets before they reach this Worker; the
 * others get the assets' 404 here. Test-only: with the `DEMO_HOLD_AFTER` knob set, `POST /test/release-hold?runId=`
 * lets a held child run go on (agents/test-holds.ts); unset, that path is the assets' like any other.
 */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const routed = await routeAgentToolRequest(request, env, {
      parents: { assistant: "ASSISTANT", plain: "PLAIN_ASSISTANT" },
    });
    if (routed) return routed;
    const url = new URL(request.url);
    // Test-only, and only with the `DEMO_HOLD_AFTER` knob set: let a held child run go on (agents/test-holds.ts).
    if (env.DEMO_HOLD_AFTER && request.method === "POST" && url.pathname === RELEASE_HOLD_PATH) {
      const runId = url.searchParams.get("runId");
      if (!runId) return Response.json({ error: "runId is required" }, { status: 400 });
      releaseHold(runId);
      return Response.json({ released: runId });
    }
    if (url.pathname === PLAIN_PAGE_FILE) {
      // The assets' html_handling would redirect the file's name to `/plain`: serve the page at both addresses.
      url.pathname = PLAIN_PAGE_PATH;
      return env.ASSETS.fetch(new Request(url, request));
    }
    const asset = await env.ASSETS.fetch(request);
    if (asset.status === 404 && url.pathname === "/") {
      return new Response(PAGE_NOT_BUILT, { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    return asset;
  },
} satisfies ExportedHandler<Env>;
