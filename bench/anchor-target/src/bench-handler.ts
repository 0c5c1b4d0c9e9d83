import type { BenchEnv, BenchParent } from "./bench-parent.js";
import { collectGarbage } from "./collect-garbage.js";

/** The parent's WebSocket path (target.json `wsPath`): `/agents/bench-parent/{parent}`. */
const WS_PATH = /^\/agents\/bench-parent\/([^/]+)$/;

function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  const value = raw === null ? Number.NaN : Number(raw);
  return Number.isFinite(value) ? value : fallback;
}

/**
 * The Worker entry: the anchor harness's HTTP contract (`/bench/ping|run|fanout|storage`), `/bench/stats`,
 * `/bench/turn-cost` (the child-only micro-measure), `pnpm bench`'s chat turns (`chat-turns`, `chat-fanout`,
 * `seed-conversation`), `pnpm bench`'s seeding for the memory figures, `/bench/gc` (a full collection before a heap figure), `/bench/retention-size` (the database after
 * many runs, with and without log retention), and the parent's WebSocket.
 */
export const benchHandler = {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const url = new URL(request.url);
    const socket = WS_PATH.exec(url.pathname);
    if (socket?.[1]) {
      const name = decodeURIComponent(socket[1]);
      return env.BenchParent.get(env.BenchParent.idFromName(name)).fetch(request);
    }
    if (!url.pathname.startsWith("/bench/")) return new Response("not found", { status: 404 });
    const parent = env.BenchParent.get(env.BenchParent.idFromName(url.searchParams.get("parent") ?? "bench"));
    try {
      return Response.json(await dispatch(url, parent));
    } catch (error) {
      const message = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
      return new Response(message, { status: error instanceof UnknownOperation ? 404 : 500 });
    }
  },
};

class UnknownOperation extends Error {}

async function dispatch(url: URL, parent: DurableObjectStub<BenchParent>): Promise<unknown> {
  const op = url.pathname.slice("/bench/".length);
  const text = (name: string, fallback: string) => url.searchParams.get(name) ?? fallback;
  switch (op) {
    case "ping":
      return parent.benchPing();
    case "run":
      return parent.benchRun(
        text("runId", crypto.randomUUID()),
        intParam(url, "count", 10),
        intParam(url, "deltaChars", 8),
      );
    case "fanout":
      return parent.benchFanOut(text("prefix", "fan"), intParam(url, "runs", 20), intParam(url, "count", 50));
    case "storage":
      return parent.benchStorage(
        text("runId", "storage-run"),
        intParam(url, "count", 100),
        intParam(url, "growthRuns", 0),
      );
    case "stats":
      return parent.benchStats();
    case "startup":
      return parent.benchStartup();
    case "gc":
      return collectGarbage();
    case "turn-cost":
      return parent.benchTurnCost(
        text("runId", `turn-cost-${crypto.randomUUID()}`),
        intParam(url, "count", 2000),
        intParam(url, "turns", 1),
      );
    case "retention-size":
      return parent.benchRetentionSize(
        text("prefix", "retain"),
        intParam(url, "runs", 10_000),
        intParam(url, "count", 100),
        text("shape", "stub") === "tokens" ? "tokens" : "stub",
        intParam(url, "maxRuns", -1),
        intParam(url, "step", 100),
      );
    case "chat-turns":
      return parent.benchChatTurns(
        text("tool", "fixed") as "fixed" | "plain" | "bench",
        intParam(url, "turns", 10),
        intParam(url, "count", 10),
      );
    case "chat-fanout":
      return parent.benchChatFanOut(
        intParam(url, "calls", 100),
        intParam(url, "count", 10),
        text("tool", "bench") as "bench" | "plain",
      );
    case "seed-conversation":
      return parent.benchSeedConversation(
        text("prefix", "seed"),
        intParam(url, "count", 1000),
        intParam(url, "chars", 500),
      );
    case "seed":
      return parent.benchSeedRetained(text("prefix", "seed"), intParam(url, "runs", 1000), intParam(url, "count", 10));
    default:
      throw new UnknownOperation(`unknown op ${op}`);
  }
}
