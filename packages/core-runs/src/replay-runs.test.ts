// Replay to one connection (SPEC §6): what a client that reconnects gets, with and without cursors.
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { AGENT_PROGRESS_PART, type AgentToolEventFrame, type AgentToolProgressSnapshot } from "./protocol/index.js";
import { AgentToolRegistry } from "./run-registry.js";
import { InMemoryRunStore } from "./testing/in-memory-run-store.js";
import { InProcessChildTransport } from "./testing/in-process-child-transport.js";
import { flushMicrotasks, ManualClock } from "./testing/manual-clock.js";
import { ScriptedChild, textChunks } from "./testing/scripted-child.js";

const settle = async () => {
  for (let turn = 0; turn < 10; turn += 1) await flushMicrotasks(50);
};

function world() {
  const clock = new ManualClock(1_000);
  const scripted = new ScriptedChild("Scripted");
  const transport = new InProcessChildTransport({ children: [scripted.definition], clock });
  const registry = new AgentToolRegistry({ store: new InMemoryRunStore(), transport, clock });
  return { clock, scripted, registry };
}

const progress = (snapshot: AgentToolProgressSnapshot) =>
  ({ type: AGENT_PROGRESS_PART, data: snapshot, transient: true }) as unknown as UIMessageChunk;

async function replay(registry: AgentToolRegistry, cursors?: Record<string, { sequence: number; revision: number }>) {
  const frames: AgentToolEventFrame[] = [];
  await registry.replayAgentToolRuns((frame) => frames.push(frame), cursors ? { cursors } : {});
  return frames;
}

describe("replay: progress", () => {
  it("sends a live run's latest progress to a client whose cursors are up to date (no new log entry)", async () => {
    const { registry, scripted, clock } = world();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    const context = await run.context;
    run.emit({ type: "start" });
    await settle();
    // The client saw sequence 1 and the run's start; then, while it was away, the child reported progress.
    const snapshot = { fraction: 0.4, message: "40 %", at: clock.now() };
    context.publishEphemeral(progress(snapshot), snapshot);
    await settle();
    const frames = await replay(registry, { r1: { sequence: 1, revision: 2 } });
    expect(frames.map((frame) => [frame.event.kind, frame.sequence])).toEqual([["chunk", undefined]]);
    expect(frames[0]?.event).toMatchObject({ kind: "chunk", body: { type: AGENT_PROGRESS_PART, data: snapshot } });
    run.complete();
    await running;
  });

  it("replays a finished run's last progress before its terminal frame", async () => {
    const { registry, scripted, clock } = world();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    const context = await run.context;
    const snapshot = { fraction: 1, message: "done", at: clock.now() };
    context.publishEphemeral(progress(snapshot), snapshot);
    run.emit(...textChunks(["ok"]));
    run.complete();
    await running;
    const kinds = (await replay(registry)).map((frame) =>
      frame.event.kind === "chunk" ? (frame.event.body as { type: string }).type : frame.event.kind,
    );
    expect(kinds.at(-2)).toBe(AGENT_PROGRESS_PART);
    expect(kinds.at(-1)).toBe("finished");
    // A client that missed the end gets the progress with the terminal; one that holds the end gets nothing.
    const missedEnd = await replay(registry, { r1: { sequence: 7, revision: 2 } });
    expect(missedEnd.map((frame) => frame.event.kind)).toEqual(["chunk", "finished"]);
    expect(await replay(registry, { r1: { sequence: 7, revision: 3 } })).toEqual([]);
  });
});
