import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ChildStartState, CONTRACT_WORKER_DURABLE_OBJECTS } from "./fixtures/contract-worker-api.js";
import { workerPerFile } from "./worker-per-file.js";

// `agentToolStartTail`'s answer over real Durable Object RPC: one `Uint8Array` for a run that has ended by then, to a
// parent that reads bytes; a stream otherwise (a live run, or a parent from before that asks for nothing).
const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));

const worker = workerPerFile(CONTRACT_WORKER, CONTRACT_WORKER_DURABLE_OBJECTS);

function startTail(input: Record<string, unknown>, answer?: { bytes: boolean }): Promise<ChildStartState> {
  return worker().fetchJson<ChildStartState>(`/child/start-tail?object=${encodeURIComponent(randomUUID())}`, {
    body: { runId: "run-1", input, ...(answer ? { answer } : {}) },
  });
}

describe("agentToolStartTail's answer", () => {
  it("is one Uint8Array carrying an instant run to its terminal, to a parent that reads bytes", async () => {
    const state = await startTail({ texts: ["a", "b", "c"] }, { bytes: true });
    expect(state.answer).toBe("bytes");
    expect(state.items.at(-1)).toBe("terminal");
    expect(state.items.filter((type) => type === "entries").length).toBeGreaterThan(0);
  });

  it("is a stream of the same items to a parent from before (it asks for nothing)", async () => {
    const asked = await startTail({ texts: ["a", "b", "c"] }, { bytes: true });
    const before = await startTail({ texts: ["a", "b", "c"] });
    expect(before.answer).toBe("stream");
    expect(before.items).toEqual(asked.items);
    expect(before.tailBytes).toBeGreaterThan(0);
  });

  it("is a stream while the run is still live, even to a parent that reads bytes", async () => {
    const state = await startTail({ texts: ["a", "b"], hold: true }, { bytes: true });
    expect(state.answer).toBe("stream");
    expect(state.alarm).not.toBeNull();
  });
});
