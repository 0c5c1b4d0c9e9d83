// OpenTelemetry GenAI spans across a kill of workerd (issue 26): a parent runs a `Middle` child, which runs three `Echo`
// grandchildren as agent tools; workerd is killed while the grandchildren stream, and started again. Every span
// recorded, before the kill and after it, is in one trace: the runs' W3C trace contexts travelled with their dispatch
// and were kept on their rows, so each re-attach and each resumed turn continues under its run's `invoke_agent` span,
// and the AI SDK's spans of the Middle's model calls nest under the Middle's run. The spans open at the kill (each
// run's `execute_tool` / `invoke_agent` pair) are re-created on re-attach with their ids and the run's recorded start
// (issue 34), so each run is one pair that spans it whole.

import { describe, expect, it } from "vitest";
import { hostWorkerPerTest } from "./host-worker-harness.js";

type RunInfo = { runId: string; agentType: string; status: string; startedAt: number; completedAt?: number };
/** A finished span as the test Worker's span log keeps it (`workers/otel-spans.ts`). */
type LoggedSpan = {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  attributes: Record<string, unknown>;
  links: string[];
  status: number;
  startTime: number;
  endTime: number;
};
type MiddleDrillIn = { dispatched: RunInfo[] };

const startHost = hostWorkerPerTest("agent-tools-otel-");
const BASE = "/agents/parent/otel";

describe("GenAI spans across a kill", () => {
  it("a parent → child → grandchild tree killed mid-run is one trace, each run's work under its run's span", async () => {
    // Each grandchild says two words, then holds until cancelled: all three are running when workerd is killed,
    // however slow the machine; after the restart, without the hold, they finish.
    const host = await startHost({ OTEL: "1", ECHO_HOLD_AFTER: "2", PARENT_WAKE_MS: "300" });
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    await host.fetchJson(`${BASE}/test/start?agent=Middle&runId=m1&text=${encodeURIComponent(text)}`, {
      method: "POST",
    });
    const drillIn = () => host.fetchJson<MiddleDrillIn>(`${BASE}/sub/Middle/m1`);
    await expect
      .poll(async () => (await drillIn()).dispatched.filter((run) => run.status === "running").length, {
        timeout: 30_000,
      })
      .toBe(3);
    await host.killAndRestart({ OTEL: "1", PARENT_WAKE_MS: "300" });

    // After the restart the parent re-attaches to the Middle, which resumes its turn and re-attaches to its leaves.
    const middle = async () => (await host.fetchJson<RunInfo[]>(`${BASE}/runs`)).find((run) => run.runId === "m1");
    await expect.poll(async () => (await middle())?.status, { timeout: 60_000 }).toBe("completed");
    const spans = () => host.fetchJson<LoggedSpan[]>("/test/spans");
    const middleAgent = (all: LoggedSpan[]) =>
      all.find((span) => span.name === "invoke_agent Middle" && span.attributes["agent_tool.status"] === "completed");
    await expect.poll(async () => middleAgent(await spans()) !== undefined, { timeout: 30_000 }).toBe(true);
    const all = await spans();
    const byId = new Map(all.map((span) => [span.spanId, span]));

    // One trace, before and after the kill.
    expect(new Set(all.map((span) => span.traceId))).toEqual(new Set([all[0]?.traceId]));
    // The Middle's run: the `execute_tool` / `invoke_agent` pair opened at its dispatch, before the kill (their ids are
    // what its work nests under), re-created after it from the trace context its row kept: one pair, from the run's
    // recorded start to its end, with every turn of the run (the one cut by the kill and the resumed one) under it.
    const middleTurns = all.filter((span) => span.name === "agent_tool.child.turn Middle");
    expect(middleTurns.length).toBeGreaterThan(0);
    const middleRun = middleTurns[0]?.parentSpanId;
    for (const turn of middleTurns) expect(turn.parentSpanId).toBe(middleRun);
    const middleAgents = all.filter((span) => span.name === "invoke_agent Middle");
    expect(middleAgents.map((span) => span.spanId)).toEqual([middleRun]);
    const agent = middleAgent(all) as LoggedSpan;
    const runInfo = (await middle()) as RunInfo;
    expect(agent.attributes).toMatchObject({ "gen_ai.agent.id": "m1", "agent_tool.recreated": true });
    expect(agent.startTime).toBe(runInfo.startedAt);
    expect(agent.endTime).toBeGreaterThanOrEqual(runInfo.completedAt ?? Number.POSITIVE_INFINITY);
    const tool = byId.get(agent.parentSpanId ?? "");
    expect(tool).toMatchObject({ name: "execute_tool Middle", startTime: runInfo.startedAt, endTime: agent.endTime });
    expect(all.filter((span) => span.name === "execute_tool Middle")).toEqual([tool]);
    // The AI SDK's spans of the Middle's model calls: their roots are children of the Middle's run.
    const aiRoots = all.filter((span) => span.parentSpanId === middleRun && !span.name.startsWith("agent_tool."));
    expect(aiRoots.length).toBeGreaterThan(0);
    // Each grandchild the same: one pair, its work before and after the restart under its own `invoke_agent`.
    for (const leaf of ["agent-tool:leaf-1", "agent-tool:leaf-2", "agent-tool:leaf-3"]) {
      const leafTurns = all.filter(
        (span) => span.name === "agent_tool.child.turn Echo" && span.attributes["agent_tool.run_id"] === leaf,
      );
      expect(leafTurns.length, leaf).toBeGreaterThan(0);
      const leafRun = leafTurns[0]?.parentSpanId;
      expect(leafRun).not.toBe(middleRun);
      for (const turn of leafTurns) expect(turn.parentSpanId).toBe(leafRun);
      const leafAgents = all.filter(
        (span) => span.name === "invoke_agent Echo" && span.attributes["gen_ai.agent.id"] === leaf,
      );
      expect(
        leafAgents.map((span) => span.spanId),
        leaf,
      ).toEqual([leafRun]);
      expect(byId.get(leafAgents[0]?.parentSpanId ?? "")?.name, leaf).toBe("execute_tool Echo");
    }
    // Nothing points at a span of another trace, and every span whose parent was recorded has the right kind above it.
    for (const span of all) {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      // (Ours: the AI SDK's own `invoke_agent` spans of model calls nest under a run's `invoke_agent`.)
      if (span.name.startsWith("invoke_agent ") && span.attributes["agent_tool.run_id"] !== undefined && parent) {
        expect(parent.name.startsWith("execute_tool ")).toBe(true);
      }
    }
  });
});
