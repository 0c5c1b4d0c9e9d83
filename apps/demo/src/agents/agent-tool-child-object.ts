import { DurableObject } from "cloudflare:workers";
import {
  type AgentToolChildDefinition,
  AgentToolChildRunner,
  type AgentToolRunInspection,
  systemClock,
} from "@agent-tools/core-runs";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { toNdjson } from "../adapters/ndjson.js";
import { webSocketUpgrade } from "./websocket-upgrade.js";

/**
 * The host of one child agent run: a Durable Object with its own SQLite storage, exposing its
 * `AgentToolChildRunner` to the parent over RPC (`DurableObjectChildTransport`), and a drill-in WebSocket that
 * shows the child's own conversation. Subclasses only say what the child is (`definition()`).
 */
const TURNS_KEY = "agentToolTurns";
const RESUMED_TURNS_KEY = "agentToolResumedTurns";

export abstract class AgentToolChildObject<TEnv = unknown> extends DurableObject<TEnv> {
  #runner: AgentToolChildRunner | undefined;

  /** What this child agent does. */
  protected abstract definition(): AgentToolChildDefinition;

  protected get runner(): AgentToolChildRunner {
    const definition = this.definition();
    this.#runner ??= new AgentToolChildRunner({
      definition: {
        ...definition,
        // Count turns durably: the demo's tests check a run never gets a second fresh turn (a turn resumed after
        // the host was cut off goes on from the steps it had completed, and is counted apart).
        turn: async (context) => {
          const key = context.resumed ? RESUMED_TURNS_KEY : TURNS_KEY;
          await this.ctx.storage.put(key, ((await this.ctx.storage.get<number>(key)) ?? 0) + 1);
          return definition.turn(context);
        },
      },
      store: new DurableObjectRunStore(this.ctx.storage),
      clock: systemClock,
      waitUntil: (promise) => this.ctx.waitUntil(promise),
    });
    return this.#runner;
  }

  agentToolStart(runId: string, input: unknown): Promise<AgentToolRunInspection> {
    // Test knob (fault tests): a start that never arrives, as if the runtime stopped before the child recorded it.
    if ((this.env as { DEMO_HOLD_CHILD_START?: string }).DEMO_HOLD_CHILD_START === "1") return new Promise(() => {});
    return this.runner.start(runId, input);
  }

  agentToolInspect(runId: string): Promise<AgentToolRunInspection | null> {
    return this.runner.inspect(runId);
  }

  async agentToolTail(runId: string, afterSequence: number): Promise<ReadableStream<Uint8Array>> {
    return toNdjson(this.runner.tail(runId, { afterSequence }));
  }

  agentToolCancel(runId: string, reason?: string): Promise<void> {
    return this.runner.cancel(runId, reason);
  }

  async agentToolDestroy(runId: string): Promise<void> {
    // Test knob (fault tests): a destroy that never answers, as if the runtime stopped in the middle of a clear.
    if ((this.env as { DEMO_HOLD_CHILD_DESTROY?: string }).DEMO_HOLD_CHILD_DESTROY === "1") {
      await this.runner.cancel(runId, "Cleared");
      return new Promise(() => {});
    }
    await this.runner.destroy(runId);
    await this.ctx.storage.deleteAll();
    // deleteAll() drops the SQLite tables too; the store creates them in its constructor, so the next call
    // (an inspect or a second destroy) needs a new runner and store, not the cached ones over missing tables.
    // Safe: destroy() awaited the run's end, so the old runner has nothing in flight.
    this.#runner = undefined;
  }

  /**
   * Drill-in: a WebSocket (reached only through the parent, which checks the run exists) that receives the
   * child's messages, then its live chunks, as `{ type: "child-messages" }` / `{ type: "child-chunk" }` frames.
   */
  override async fetch(request: Request): Promise<Response> {
    const runId = new URL(request.url).searchParams.get("runId");
    if (!runId) return new Response("runId required", { status: 400 });
    if (request.headers.get("Upgrade") !== "websocket") {
      return Response.json({
        runId,
        messages: await this.runner.getMessages(runId),
        run: await this.runner.inspect(runId),
        turns: (await this.ctx.storage.get<number>(TURNS_KEY)) ?? 0,
        resumedTurns: (await this.ctx.storage.get<number>(RESUMED_TURNS_KEY)) ?? 0,
      });
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    server.accept();
    const inspection = await this.runner.inspect(runId);
    server.send(
      JSON.stringify({
        type: "child-messages",
        runId,
        messages: await this.runner.getMessages(runId),
        run: inspection,
      }),
    );
    const tail = this.runner.tail(runId, { afterSequence: inspection?.lastSequence ?? 0 });
    const reader = tail.getReader();
    server.addEventListener("close", () => void reader.cancel().catch(() => undefined));
    this.ctx.waitUntil(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          server.send(JSON.stringify({ type: "child-chunk", runId, item: value }));
        }
      })().catch(() => undefined),
    );
    return webSocketUpgrade(client);
  }
}
