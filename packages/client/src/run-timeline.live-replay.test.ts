// Live and replay give the same state (issue 24): a client that watched a run live and one that connects at the same
// moment (a reload) hold the same run — progress (its fraction and phase across milestones), milestones, message and
// status — whatever the child reported, mid-run and at the end. Driven through the real parent side (the registry and
// the child runner, in-process), as a property over random runs.
import { AgentToolRegistry } from "@agent-tools/core-runs";
import { AGENT_MILESTONE_PART, AGENT_PROGRESS_PART, type AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import {
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  ScriptedChild,
} from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentToolTimelineState, applyAgentToolEvent, createAgentToolTimelineState } from "./run-timeline.js";

type Fields = { fraction?: number; phase?: string; message?: string; data?: number };
type Action =
  | ({ kind: "progress" } & Fields)
  | ({ kind: "milestone"; name: string } & Fields)
  | { kind: "text"; text: string }
  | { kind: "tick"; ms: number }
  /** A client connects now: its replay must give what the live client holds. */
  | { kind: "reload" };

const fields: fc.Arbitrary<Fields> = fc.record(
  {
    fraction: fc.integer({ min: 0, max: 10 }).map((tenths) => tenths / 10),
    phase: fc.constantFrom("schema", "rows", "index"),
    message: fc.string({ maxLength: 8 }),
    data: fc.integer({ min: 0, max: 99 }),
  },
  { requiredKeys: [] },
);
const action: fc.Arbitrary<Action> = fc.oneof(
  fields.map((given) => ({ kind: "progress" as const, ...given })),
  fc
    .tuple(fc.constantFrom("checked", "half-way", "indexed"), fields)
    .map(([name, given]) => ({ kind: "milestone" as const, name, ...given })),
  fc.string({ minLength: 1, maxLength: 5 }).map((text) => ({ kind: "text" as const, text })),
  fc.constantFrom(0, 50, 250).map((ms) => ({ kind: "tick" as const, ms })),
  fc.constant({ kind: "reload" as const }),
);

/** Let the child write and the parent forward (the child writes each burst when its event loop turns: the clock). */
const settle = async (clock: ManualClock) => {
  await clock.advanceBy(0);
  for (let turn = 0; turn < 10; turn += 1) await flushMicrotasks(50);
};

const reduce = (frames: readonly AgentToolEventFrame[]) =>
  frames.reduce<AgentToolTimelineState>(
    (state, frame) => applyAgentToolEvent(state, frame),
    createAgentToolTimelineState(),
  );

/** What a run shows a user. */
const shown = (state: AgentToolTimelineState) => {
  const run = state.runsById["r1"];
  return run && { status: run.status, progress: run.progress, milestones: run.milestones, parts: run.parts };
};

/** The report's fields as the progress package sends them (data persisted, so a reload has it too). */
const given = ({ fraction, phase, message, data }: Fields) => ({
  ...(fraction !== undefined ? { fraction } : {}),
  ...(message !== undefined ? { message } : {}),
  ...(phase !== undefined ? { phase } : {}),
  ...(data !== undefined ? { data } : {}),
});

async function liveAndReloaded(actions: readonly Action[]): Promise<Array<[live: unknown, reloaded: unknown]>> {
  const clock = new ManualClock(1_000);
  const child = new ScriptedChild("Importer");
  const live: AgentToolEventFrame[] = [];
  const registry = new AgentToolRegistry({
    store: new InMemoryRunStore(),
    transport: new InProcessChildTransport({ children: [child.definition], clock }),
    clock,
    broadcast: (frame) => live.push(frame),
  });
  const compared: Array<[unknown, unknown]> = [];
  const reload = async () => {
    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    compared.push([shown(reduce(live)), shown(reduce(replayed))]);
  };
  const result = registry.runAgentTool("Importer", { input: "import", runId: "r1" });
  const run = child.run("r1");
  const context = await run.context;
  run.emit({ type: "start" }, { type: "start-step" }, { type: "text-start", id: "t" });
  for (const next of actions) {
    const at = clock.now();
    if (next.kind === "progress") {
      const body = { type: AGENT_PROGRESS_PART, data: { ...given(next), at }, transient: true } as UIMessageChunk;
      context.publishEphemeral(body, { ...given(next), at });
    } else if (next.kind === "milestone") {
      const body = { type: AGENT_MILESTONE_PART, data: { milestone: next.name, ...given(next), at } } as UIMessageChunk;
      context.appendChunk(body, { name: next.name, ...given(next) });
    } else if (next.kind === "text") {
      run.emit({ type: "text-delta", id: "t", delta: next.text });
    } else if (next.kind === "tick") {
      await clock.advanceBy(next.ms);
    }
    await settle(clock);
    if (next.kind === "reload") await reload();
  }
  run.emit({ type: "text-end", id: "t" }, { type: "finish-step" }, { type: "finish" });
  run.complete();
  await settle(clock);
  await result;
  await reload();
  return compared;
}

describe("a run's state live and after a reload", () => {
  it("keeps the bar's fraction and phase across a milestone, live as after a reload", async () => {
    const compared = await liveAndReloaded([
      { kind: "progress", fraction: 0.4, phase: "rows", message: "4 of 10" },
      { kind: "tick", ms: 50 },
      { kind: "milestone", name: "half-way" },
      { kind: "reload" },
    ]);
    for (const [live, reloaded] of compared) {
      expect(live).toMatchObject({ progress: { fraction: 0.4, phase: "rows", milestone: "half-way" } });
      expect(live).toEqual(reloaded);
    }
  });

  it("is the same for any run, at any moment a client reloads", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 12 }), async (actions) => {
        for (const [live, reloaded] of await liveAndReloaded(actions)) expect(live).toEqual(reloaded);
      }),
      { numRuns: 60 },
    );
  });
});
