// Property-based tests of the client reducer (issue 10): whatever order, duplication and interleaving the frames of a
// valid log arrive in, the durable content is the in-order result, the lifecycle ends at the highest revision,
// nothing throws, and cleared runs never come back. Also: forged, replayed and malformed frames change nothing.
// And of the protocol's frame acceptance (`acceptAgentToolFrame`), the one rule every reader of the wire applies (this
// reducer, the registry's run follower, the AG-UI projection and the demo's terminal renderer).
import {
  type AgentToolEventFrame,
  acceptAgentToolFrame,
  NO_FRAMES_ACCEPTED,
  parseAgentToolFrame,
} from "@agent-tools/core-runs/protocol";
import type { UIMessageChunk } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAgentToolStore } from "./agent-tool-store.js";
import {
  type AgentToolRunState,
  type AgentToolTimelineState,
  applyAgentToolEvent,
  createAgentToolTimelineState,
} from "./run-timeline.js";

/**
 * CPU-heavy (thousands of generated frame sequences): a time budget of its own. vitest's five-second default is for
 * unit tests, and a busy machine runs this several times slower than an idle one; the budget still ends a test that
 * hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

type Frame = AgentToolEventFrame;
const TYPE = "agent-tool-event" as const;

type Ending = "finished" | "error" | "aborted" | "interrupted" | "repaired" | "live";
type RunSpec = {
  words: string[];
  milestones: number;
  progress: number;
  ending: Ending;
  bound: boolean;
  cleared: boolean;
  /** The child was cut off once in its step and resumed: a partial step, then a step reset, then the step again. */
  cut: boolean;
};

const runSpec: fc.Arbitrary<RunSpec> = fc.record({
  words: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 6 }),
  milestones: fc.integer({ min: 0, max: 2 }),
  progress: fc.integer({ min: 0, max: 2 }),
  ending: fc.constantFrom<Ending>("finished", "error", "aborted", "interrupted", "repaired", "live"),
  bound: fc.boolean(),
  cleared: fc.boolean(),
  cut: fc.boolean(),
});

type RunLog = { runId: string; frames: Frame[]; lifecycleRevisions: number[]; cleared: boolean; text: string };

/** The frames a parent sends for one run, in order: started, chunks (with progress between), terminal(s). */
function buildRun(index: number, spec: RunSpec): RunLog {
  const runId = `run-${index}`;
  const toolCall = spec.bound ? { parentToolCallId: `call-${index}` } : {};
  const frames: Frame[] = [
    {
      type: TYPE,
      ...toolCall,
      revision: 1,
      event: { kind: "started", runId, agentType: "Researcher", displayOrder: index, inputPreview: `in ${index}` },
    },
  ];
  const bodies: UIMessageChunk[] = [];
  if (spec.cut) {
    // The cut turn's part of the step (with a milestone when the run has any), voided by the reset from sequence 1.
    const half = spec.words.slice(0, Math.ceil(spec.words.length / 2));
    bodies.push(
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t1" },
      ...half.map((delta): UIMessageChunk => ({ type: "text-delta", id: "t1", delta })),
    );
    if (spec.milestones > 0) {
      bodies.push({ type: "data-agent-milestone", data: { milestone: "cut", at: 1001 } } as UIMessageChunk);
    }
    bodies.push({ type: "data-agent-step-reset", data: { fromSequence: 1 }, transient: true } as UIMessageChunk);
  }
  bodies.push(
    { type: "start" },
    { type: "start-step" },
    { type: "text-start", id: "t1" },
    ...spec.words.map((delta): UIMessageChunk => ({ type: "text-delta", id: "t1", delta })),
    { type: "text-end", id: "t1" },
  );
  let at = 1000;
  for (let milestone = 0; milestone < spec.milestones; milestone++) {
    at += 10;
    bodies.push({ type: "data-agent-milestone", data: { milestone: `m${milestone}`, at } } as UIMessageChunk);
  }
  bodies.push({ type: "finish-step" }, { type: "finish" });
  let progressLeft = spec.progress;
  bodies.forEach((body, position) => {
    frames.push({ type: TYPE, ...toolCall, sequence: position + 1, event: { kind: "chunk", runId, body } });
    if (progressLeft > 0 && position % 2 === 1) {
      progressLeft -= 1;
      at += 10;
      frames.push({
        type: TYPE,
        ...toolCall,
        event: {
          kind: "chunk",
          runId,
          body: { type: "data-agent-progress", data: { fraction: at / 10_000, at }, transient: true } as UIMessageChunk,
        },
      });
    }
  });
  const lifecycleRevisions = [1];
  const terminal = (revision: number, event: Frame["event"]) => {
    lifecycleRevisions.push(revision);
    frames.push({ type: TYPE, ...toolCall, revision, event });
  };
  switch (spec.ending) {
    case "finished":
      terminal(3, { kind: "finished", runId, summary: spec.words.join(""), output: { words: spec.words.length } });
      break;
    case "error":
      terminal(3, { kind: "error", runId, error: "the model failed" });
      break;
    case "aborted":
      terminal(3, { kind: "aborted", runId, error: "cancelled" });
      break;
    case "interrupted":
      terminal(3, { kind: "interrupted", runId, error: "restart", reason: "no-progress", childStillRunning: true });
      break;
    case "repaired":
      terminal(3, { kind: "interrupted", runId, error: "restart", reason: "no-progress", childStillRunning: true });
      terminal(4, { kind: "finished", runId, summary: "repaired" });
      break;
    case "live":
      break;
  }
  return { runId, frames, lifecycleRevisions, cleared: spec.cleared, text: spec.words.join("") };
}

/** The whole log in order: each run's frames, runs one after another, then one `cleared` for the cleared runs. */
function buildLog(specs: RunSpec[]) {
  const runs = specs.map((spec, index) => buildRun(index, spec));
  const frames = runs.flatMap((run) => run.frames);
  const clearedIds = runs.filter((run) => run.cleared).map((run) => run.runId);
  if (clearedIds.length > 0) frames.push({ type: TYPE, event: { kind: "cleared", runIds: clearedIds } });
  return { runs, frames, clearedIds };
}

const reduce = (frames: readonly Frame[], state = createAgentToolTimelineState()) =>
  frames.reduce<AgentToolTimelineState>((current, frame) => applyAgentToolEvent(current, frame), state);

/** What must not depend on arrival order. (`runOrder` and object identity may.) */
function durable(run: AgentToolRunState | undefined) {
  if (!run) return undefined;
  return {
    agentType: run.agentType,
    parentToolCallId: run.parentToolCallId,
    displayOrder: run.displayOrder,
    inputPreview: run.inputPreview,
    status: run.status,
    revision: run.revision,
    lastSequence: run.lastSequence,
    parts: run.parts,
    summary: run.summary,
    output: run.output,
    error: run.error,
    reason: run.reason,
    childStillRunning: run.childStillRunning,
    progress: run.progress,
    milestones: run.milestones,
    streamError: run.streamError,
    drillInUrl: run.drillInUrl,
  };
}

/** The log, shuffled, with some frames sent again (a replay/live race) and some copies flagged `replay`. */
const disorderedLog = fc
  .array(runSpec, { minLength: 1, maxLength: 4 })
  .chain((specs) => {
    const log = buildLog(specs);
    const count = log.frames.length;
    return fc.record({
      log: fc.constant(log),
      order: fc.shuffledSubarray(
        log.frames.map((_, index) => index),
        { minLength: count, maxLength: count },
      ),
      duplicates: fc.array(fc.tuple(fc.nat({ max: count - 1 }), fc.nat({ max: count }), fc.boolean()), {
        maxLength: count,
      }),
    });
  })
  .map(({ log, order, duplicates }) => {
    const frames: Frame[] = order.map((index) => log.frames[index] as Frame);
    for (const [source, position, asReplay] of duplicates) {
      const frame = log.frames[source] as Frame;
      frames.splice(Math.min(position, frames.length), 0, asReplay ? { ...frame, replay: true } : frame);
    }
    return { log, frames };
  });

describe("applyAgentToolEvent (properties)", CPU_HEAVY, () => {
  it("any interleaving, duplication and reordering gives the in-order durable content", () => {
    fc.assert(
      fc.property(disorderedLog, ({ log, frames }) => {
        const expected = reduce(log.frames);
        const actual = reduce(frames);
        const ids = log.runs.map((run) => run.runId);
        for (const runId of ids) {
          expect(durable(actual.runsById[runId])).toEqual(durable(expected.runsById[runId]));
        }
        expect(new Set(actual.runOrder)).toEqual(new Set(expected.runOrder));
      }),
      { numRuns: 400 },
    );
  });

  it("a run resumed after a cut ends as a fresh client's replay shows it: the voided chunks left out", () => {
    fc.assert(
      fc.property(disorderedLog, ({ log, frames }) => {
        const actual = reduce(frames);
        for (const run of log.runs) {
          const reset = run.frames.find(
            (frame) => frame.event.kind === "chunk" && frame.event.body.type === "data-agent-step-reset",
          );
          if (!reset || run.cleared) continue;
          // What a parent replays to a client with no cursor: every chunk of the cut step but its milestone left out.
          const replayed = run.frames.filter(
            (frame) =>
              frame.sequence === undefined ||
              frame.sequence >= (reset.sequence ?? 0) ||
              (frame.event.kind === "chunk" && frame.event.body.type === "data-agent-milestone"),
          );
          const fresh = reduce(replayed).runsById[run.runId];
          const state = actual.runsById[run.runId];
          expect(state?.parts).toEqual(fresh?.parts);
          expect(state?.lastSequence).toBe(fresh?.lastSequence);
          expect(state?.milestones).toEqual(fresh?.milestones);
          const texts = state?.parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
          expect(texts).toEqual([run.text]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the lifecycle ends at the highest revision sent, with that frame's status", () => {
    fc.assert(
      fc.property(disorderedLog, ({ log, frames }) => {
        const actual = reduce(frames);
        for (const run of log.runs) {
          if (run.cleared) continue;
          const state = actual.runsById[run.runId];
          expect(state).toBeDefined();
          const highest = Math.max(...run.lifecycleRevisions);
          expect(state?.revision).toBe(highest);
          const last = run.frames.filter((frame) => frame.revision === highest).at(-1);
          const status = {
            started: "running",
            finished: "completed",
            error: "error",
            aborted: "aborted",
            interrupted: "interrupted",
          }[last?.event.kind as "started"];
          expect(state?.status).toBe(status);
          // Durable content complete: every sequence was sent, so the cursor is at the end of the log.
          const sequences = run.frames.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []));
          expect(state?.lastSequence).toBe(Math.max(0, ...sequences));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("acceptAgentToolFrame: any disorder accepts each sequence once, ends gap-free at the highest revision", () => {
    fc.assert(
      fc.property(disorderedLog, ({ log, frames }) => {
        const state = reduce(frames);
        for (const run of log.runs) {
          let cursor = NO_FRAMES_ACCEPTED;
          const acceptedSequences: number[] = [];
          for (const frame of frames) {
            if (frame.event.kind === "cleared" || frame.event.runId !== run.runId) continue;
            const result = acceptAgentToolFrame(cursor, frame);
            cursor = result.cursor;
            if (result.accepted && frame.sequence !== undefined) acceptedSequences.push(frame.sequence);
          }
          const sequences = run.frames.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []));
          // Each sequence at most once; every one the cut step did not void exactly once (a late voided copy is not).
          expect(new Set(acceptedSequences).size).toBe(acceptedSequences.length);
          const reset = run.frames.find(
            (frame) => frame.event.kind === "chunk" && frame.event.body.type === "data-agent-step-reset",
          )?.sequence;
          for (const sequence of sequences) {
            if (reset === undefined || sequence >= reset) expect(acceptedSequences).toContain(sequence);
          }
          expect(cursor.contiguous).toBe(Math.max(0, ...sequences));
          expect(cursor.ahead).toEqual([]);
          expect(cursor.revision).toBe(Math.max(...run.lifecycleRevisions));
          // The client follows the same rule.
          const client = state.runsById[run.runId];
          if (run.cleared) continue;
          expect(client?.lastSequence).toBe(cursor.contiguous);
          expect(client?.revision).toBe(cursor.revision);
          expect(client?.status).toBe(cursor.status);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("cleared runs never come back, whatever arrives after the cleared frame", () => {
    fc.assert(
      fc.property(disorderedLog, ({ log, frames }) => {
        let state = createAgentToolTimelineState();
        let clearedSeen = false;
        for (const frame of frames) {
          state = applyAgentToolEvent(state, frame);
          if (frame.event.kind === "cleared") clearedSeen = true;
          if (!clearedSeen) continue;
          for (const runId of log.clearedIds) {
            expect(Object.hasOwn(state.runsById, runId)).toBe(false);
            expect(state.runOrder).not.toContain(runId);
          }
        }
        // And a full replay of every run afterwards (a server bug) does not revive them either.
        state = reduce(
          log.frames.filter((frame) => frame.event.kind !== "cleared"),
          state,
        );
        for (const runId of log.clearedIds) expect(Object.hasOwn(state.runsById, runId)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("a replay of the whole log after the live frames changes nothing", () => {
    fc.assert(
      fc.property(fc.array(runSpec, { minLength: 1, maxLength: 3 }), (specs) => {
        const { frames } = buildLog(specs);
        const state = reduce(frames);
        const replayed = reduce(
          frames.map((frame) => ({ ...frame, replay: true as const })),
          state,
        );
        for (const runId of state.runOrder) {
          expect(durable(replayed.runsById[runId])).toEqual(durable(state.runsById[runId]));
        }
        // Durable frames held already return the very same state (no re-render). An ephemeral progress frame with
        // the same `at` as the one held does make a new (equal) run object: `snapshot.at >= progress.at` admits
        // ties. Harmless (content is equal), so it is left out of the identity check.
        const durableOnly = frames.filter((frame) => frame.sequence !== undefined || frame.revision !== undefined);
        const replayedDurable = reduce(
          durableOnly.map((frame) => ({ ...frame, replay: true as const })),
          state,
        );
        expect(replayedDurable).toBe(state);
      }),
      { numRuns: 200 },
    );
  });

  it("forged stale lifecycle frames (older or equal revision) change nothing", () => {
    const forged = fc.record({
      kind: fc.constantFrom("started", "finished", "error", "aborted", "interrupted"),
      revisionBack: fc.nat({ max: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(runSpec, { minLength: 1, maxLength: 3 }),
        fc.array(forged, { maxLength: 8 }),
        (specs, fakes) => {
          const { runs, frames } = buildLog(specs);
          const state = reduce(frames);
          const live = runs.filter((run) => !run.cleared);
          let after = state;
          fakes.forEach((fake, index) => {
            const run = live[index % Math.max(1, live.length)];
            if (!run) return;
            const held = state.runsById[run.runId]?.revision ?? 1;
            const revision = Math.max(1, held - fake.revisionBack);
            const runId = run.runId;
            const event =
              fake.kind === "started"
                ? { kind: "started" as const, runId, agentType: "Forged", displayOrder: 99 }
                : fake.kind === "finished"
                  ? { kind: "finished" as const, runId, summary: "forged" }
                  : fake.kind === "interrupted"
                    ? {
                        kind: "interrupted" as const,
                        runId,
                        error: "forged",
                        reason: "budget-exceeded" as const,
                        childStillRunning: false,
                      }
                    : { kind: fake.kind as "error" | "aborted", runId, error: "forged" };
            after = applyAgentToolEvent(after, { type: TYPE, revision, event });
          });
          expect(after).toBe(state);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("chunks with bodies the reducer cannot read change nothing and never throw", () => {
    const badBody = fc.oneof(
      fc.constantFrom<unknown>(null, undefined, 1, true, [], "not json", "[1,2]", "{}", '{"type":1}', { type: 5 }),
      fc
        .jsonValue()
        .filter(
          (value) =>
            !(typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"),
        ),
    );
    fc.assert(
      fc.property(
        fc.array(runSpec, { minLength: 1, maxLength: 2 }),
        badBody,
        fc.option(fc.nat()),
        (specs, body, sequence) => {
          const state = reduce(buildLog(specs).frames);
          const frame = {
            type: TYPE,
            ...(sequence !== null ? { sequence: sequence + 1 } : {}),
            event: { kind: "chunk", runId: "run-0", body },
          } as unknown as Frame;
          let after: AgentToolTimelineState = state;
          expect(() => {
            after = applyAgentToolEvent(state, frame);
          }).not.toThrow();
          expect(after).toBe(state);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("whatever the parser accepts from arbitrary JSON, the reducer applies without throwing", () => {
    const nearFrame = fc.record({
      type: fc.constant(TYPE),
      sequence: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
      revision: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      event: fc.record({
        kind: fc.constantFrom("started", "chunk", "finished", "error", "aborted", "interrupted", "cleared"),
        runId: fc.constantFrom("run-0", "run-1", "__proto__", "constructor", "toString"),
        runIds: fc.array(fc.constantFrom("run-0", "run-1", "__proto__", "constructor")),
        agentType: fc.string({ minLength: 1 }),
        body: fc.oneof(
          fc.jsonValue(),
          fc.record({ type: fc.string(), id: fc.string(), delta: fc.jsonValue() }),
          fc.record({ type: fc.constantFrom("data-agent-progress", "data-agent-milestone"), data: fc.jsonValue() }),
          fc.record({
            type: fc.constant("data-agent-step-reset"),
            data: fc.record({ fromSequence: fc.oneof(fc.integer({ min: -2, max: 60 }), fc.jsonValue()) }),
            transient: fc.boolean(),
          }),
          fc.record({
            type: fc.constantFrom("text-delta", "tool-input-delta", "tool-output-available", "text-end", "error"),
            id: fc.string(),
            toolCallId: fc.string(),
          }),
        ),
        summary: fc.string(),
        error: fc.string(),
        reason: fc.constantFrom("no-progress", "window-exceeded"),
        childStillRunning: fc.boolean(),
      }),
    });
    fc.assert(
      fc.property(fc.array(runSpec, { maxLength: 2 }), fc.array(nearFrame, { maxLength: 30 }), (specs, raws) => {
        let state = reduce(buildLog(specs).frames);
        for (const raw of raws) {
          const parsed = parseAgentToolFrame(JSON.stringify(raw));
          if (!parsed.ok) continue;
          expect(() => {
            state = applyAgentToolEvent(state, parsed.frame);
          }).not.toThrow();
        }
        for (const runId of state.runOrder) expect(Object.hasOwn(state.runsById, runId)).toBe(true);
        expect(Object.getPrototypeOf(state.runsById)).toBe(Object.prototype);
      }),
      { numRuns: 300 },
    );
  });

  it("a stream in batches (any split, bad elements among them) ends as the same frames one per message", () => {
    const splits = disorderedLog.chain(({ frames }) =>
      fc.record({
        frames: fc.constant(frames),
        // Where each batch ends, and where a malformed element (bad JSON inside, or not a frame) goes.
        cuts: fc.array(fc.nat({ max: frames.length }), { maxLength: frames.length }),
        bad: fc.array(
          fc.tuple(
            fc.nat({ max: frames.length }),
            fc.constantFrom("42", '"text"', '{"type":"agent-tool-event"}', "[]"),
          ),
          {
            maxLength: 3,
          },
        ),
        asText: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(splits, ({ frames, cuts, bad, asText }) => {
        const one = createAgentToolStore();
        for (const frame of frames) one.dispatch(JSON.stringify(frame));
        const texts = frames.map((frame) => JSON.stringify(frame));
        for (const [at, text] of bad) texts.splice(Math.min(at, texts.length), 0, text);
        const ends = [...new Set([...cuts, texts.length])].sort((a, b) => a - b);
        const batched = createAgentToolStore();
        let from = 0;
        for (const end of ends) {
          const batch = texts.slice(from, end);
          from = end;
          if (batch.length === 0) continue;
          batched.dispatch(asText ? `[${batch.join(",")}]` : batch.map((text) => JSON.parse(text)));
        }
        // A malformed batch (not JSON) is one bad message: it changes nothing.
        expect(batched.dispatch(`[${texts[0] ?? ""}`)).toBe(false);
        expect(batched.getSnapshot()).toEqual(one.getSnapshot());
      }),
      { numRuns: 200 },
    );
  });
});
