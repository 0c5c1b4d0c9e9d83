import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ChildStartState, CONTRACT_WORKER_DURABLE_OBJECTS } from "./fixtures/contract-worker-api.js";
import { workerPerFile } from "./worker-per-file.js";

// AgentToolChild's own alarm: armed while a run of it is live (a turn cut by an eviction goes on at the next alarm),
// and only then.
const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));

/** `DEFAULT_CHILD_WAKE_INTERVAL_MS` (its module needs workerd's `cloudflare:workers`). */
const DEFAULT_CHILD_WAKE_INTERVAL_MS = 5_000;

const worker = workerPerFile(CONTRACT_WORKER, CONTRACT_WORKER_DURABLE_OBJECTS);

function startTail(object: string, runId: string, input: Record<string, unknown>): Promise<ChildStartState> {
  return worker().fetchJson<ChildStartState>(`/child/start-tail?object=${encodeURIComponent(object)}`, {
    body: { runId, input },
  });
}

describe("AgentToolChild's alarm", () => {
  it("is armed within the wake interval when its run is still live once its start answered", async () => {
    const object = `held-${randomUUID()}`;
    const before = Date.now();
    const state = await startTail(object, "run-1", { texts: ["a", "b"], hold: true });
    expect(state.alarm).not.toBeNull();
    expect(state.alarm).toBeGreaterThanOrEqual(before);
    expect(state.alarm).toBeLessThanOrEqual(Date.now() + DEFAULT_CHILD_WAKE_INTERVAL_MS);
    await worker().fetchJson(`/child/cancel?object=${encodeURIComponent(object)}`, { body: { runId: "run-1" } });
  });

  it("arming it does not hold the start of a long instant run past the turn's first yield (64 chunks)", async () => {
    const texts = Array.from({ length: 600 }, (_, index) => `w${index} `);
    const { sequence } = await worker().fetchJson<{ sequence: number }>(
      `/child/start-tail-sequence?object=${encodeURIComponent(`long-${randomUUID()}`)}`,
      { body: { runId: "run-1", input: { texts } } },
    );
    // Answered at the turn's first yield, after its 64th chunk: not a burst of 256 later.
    expect(sequence).toBe(64);
  });

  it("is not armed by a run whose turn ended before its start answered (no live run needs a wake-up)", async () => {
    const state = await startTail(`instant-${randomUUID()}`, "run-1", { texts: ["a", "b"] });
    expect(state.tailBytes).toBeGreaterThan(0);
    expect(state.alarm).toBeNull();
  });
});
