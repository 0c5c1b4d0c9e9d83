/**
 * `pnpm bench`'s reconcile figures: the real `@agent-tools/detached` reconcile tick over retained detached runs
 * written straight into a parent's store (no child objects: every seeded run is finished, so the tick never needs a
 * child). Retained runs have their result delivered already; the due ones have a delivery to retry at a time just
 * ahead (a claim's `notBefore`), so the tick that handles them is a steady-state tick, not the first one.
 *
 * Built by `scripts/bench.mjs` with the `@agent-tools/source` condition (the harness never builds this file).
 */
import { DurableObject } from "cloudflare:workers";
import { DurableObjectRunStore } from "@agent-tools/cloudflare";
import { AgentToolRegistry, type AgentToolRunInfo, type ChildTransport, systemClock } from "@agent-tools/core-runs";
import type { RunRecord } from "@agent-tools/core-runs/internal";
import { createDetachedRuns } from "@agent-tools/detached";
import { DETACHED_META_KEY, type DetachedRuns } from "@agent-tools/detached/internal";
import { installSqlMeter, type SqlMeter } from "../src/sql-meter.js";

type ReconcileEnv = { ReconcileParent: DurableObjectNamespace<ReconcileParent> };

const AGENT_TYPE = "BenchChild";
const DAY_MS = 86_400_000;

/** Seeded runs are finished: any call to a child means the tick did something it should not. */
const noChildren: ChildTransport = {
  start: () => Promise.reject(new Error("bench: no child objects here")),
  inspect: () => Promise.reject(new Error("bench: no child objects here")),
  tail: () =>
    new ReadableStream({
      start(controller) {
        controller.error(new Error("bench: no child objects here"));
      },
    }),
  cancel: () => Promise.reject(new Error("bench: no child objects here")),
  destroy: () => Promise.reject(new Error("bench: no child objects here")),
};

export class ReconcileParent extends DurableObject<ReconcileEnv> {
  readonly meter: SqlMeter;
  readonly store: DurableObjectRunStore;
  readonly registry: AgentToolRegistry;
  readonly detached: DetachedRuns<ReconcileParent>;
  delivered = 0;

  constructor(ctx: DurableObjectState, env: ReconcileEnv) {
    super(ctx, env);
    this.meter = installSqlMeter(ctx.storage);
    this.store = new DurableObjectRunStore(ctx.storage);
    this.registry = new AgentToolRegistry({ store: this.store, transport: noChildren, clock: systemClock });
    // The runner calls tick() itself: no alarm is armed.
    this.detached = createDetachedRuns<ReconcileParent>({
      registry: this.registry,
      host: this,
      scheduler: { wakeAt: async () => {} },
    });
  }

  /** The `onFinish` handler of every seeded run. */
  onBenchFinish(_run: AgentToolRunInfo): void {
    this.delivered += 1;
  }

  /** `retained` finished detached runs, the last `due` of them with a delivery to retry `dueInMs` from now. */
  async seed(retained: number, due: number, dueInMs: number): Promise<{ ms: number; rows: number }> {
    const started = Date.now();
    const now = Date.now();
    for (let index = 0; index < retained; index += 1) {
      const isDue = index >= retained - due;
      const record: RunRecord = {
        runId: `d-${index}`,
        agentType: AGENT_TYPE,
        status: "completed",
        revision: 3,
        startedAt: now - retained + index,
        updatedAt: now,
        completedAt: now,
        displayOrder: 0,
        inputPreview: '{"count":10}',
        startAcknowledged: true,
        lastSequence: 10,
        summary: "stub emitted 10 chunks",
        detached: true,
        // As the terminal write leaves a run whose delivery is still to come: marked for @agent-tools/detached.
        ...(isDue ? { attention: { [DETACHED_META_KEY]: true as const } } : {}),
        meta: {
          [DETACHED_META_KEY]: {
            version: 1,
            onFinish: "onBenchFinish",
            maxBudgetMs: DAY_MS,
            noProgressBudgetMs: 0,
            budgetDeadline: now + DAY_MS,
            delivery: isDue
              ? { settledRevision: 0, claim: { revision: 3, attempts: 1, notBefore: now + dueInMs } }
              : { settledRevision: 3, deliveredStatus: "completed" },
          },
        },
      };
      await this.store.insertRun(record);
    }
    return { ms: Date.now() - started, rows: (await this.store.listRuns()).length };
  }

  /** One tick, settled (its deliveries awaited): time, SQL rows read and written, what it reported. */
  async tick(): Promise<Record<string, unknown>> {
    this.meter.reset();
    const deliveredBefore = this.delivered;
    const started = performance.now();
    const report = await this.detached.tick();
    await this.detached.whenIdle();
    const ms = performance.now() - started;
    const { rowsRead, rowsWritten, statements } = this.meter.read();
    return {
      ms,
      rowsRead,
      rowsWritten,
      statements,
      due: report.due,
      claimed: report.claimed,
      delivered: this.delivered - deliveredBefore,
    };
  }
}

function intParam(url: URL, name: string, fallback: number): number {
  const value = Number(url.searchParams.get(name));
  return url.searchParams.has(name) && Number.isFinite(value) ? value : fallback;
}

// biome-ignore lint/style/noDefaultExport: a Worker's entry is its default export.
export default {
  async fetch(request: Request, env: ReconcileEnv): Promise<Response> {
    const url = new URL(request.url);
    const parent = env.ReconcileParent.get(env.ReconcileParent.idFromName(url.searchParams.get("parent") ?? "r"));
    switch (url.pathname) {
      case "/bench/ping":
        return Response.json({ now: Date.now() });
      case "/bench/seed":
        return Response.json(
          await parent.seed(intParam(url, "retained", 1000), intParam(url, "due", 10), intParam(url, "dueInMs", 500)),
        );
      case "/bench/tick":
        return Response.json(await parent.tick());
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
