// A child's own `this.reportProgress` (issue 24): a tool of its `getTools()` reports progress, and it reaches the
// parent's clients as the run's progress and milestone frames. Two runs on one child object whose tools report at the
// same time each report for their own run.
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-child-report-progress-");

const chunkBodies = (messages: unknown[], runId: string) =>
  (messages as AgentToolEventFrame[]).flatMap((frame) =>
    frame.type === "agent-tool-event" && frame.event.kind === "chunk" && frame.event.runId === runId
      ? [frame.event.body as { type: string; data?: Record<string, unknown> }]
      : [],
  );
const isFinished = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).some(
    (frame) => frame.type === "agent-tool-event" && frame.event.kind === "finished",
  );

describe("AgentToolChild.reportProgress", () => {
  it("reports a getTools() tool's progress and milestone to the parent's clients", async () => {
    const host = await start();
    const base = "/agents/parent/p1";
    const socket = await RecordingSocket.open(wsUrl(host, base));
    await host.fetchJson(`${base}/test/start?agent=Gauge&runId=g1&text=g1`, { method: "POST" });
    const bodiesOf = (type: string) => chunkBodies(socket.messages, "g1").filter((body) => body.type === type);
    await socket.waitFor(() => bodiesOf("data-agent-milestone").length > 0);
    expect(bodiesOf("data-agent-milestone")[0]?.data).toMatchObject({ milestone: "measuring g1" });
    // The parent follows the run: let the tool go on to its ephemeral progress.
    await host.fetchJson("/test/gauge-gate?name=g1", { method: "POST" });
    await socket.waitFor(isFinished);
    socket.close();
    expect(bodiesOf("data-agent-progress").map((body) => body.data)).toContainEqual(
      expect.objectContaining({ fraction: 0.5, phase: "measuring g1", message: "half of g1" }),
    );
  });

  it("sends the progress its reportProgress still holds when the turn ends, before the run's end", async () => {
    const host = await start();
    const base = "/agents/parent/p1";
    const socket = await RecordingSocket.open(wsUrl(host, base));
    await host.fetchJson(`${base}/test/start?agent=Gauge&runId=g1&text=g1&trailing=1`, { method: "POST" });
    await socket.waitFor(() => chunkBodies(socket.messages, "g1").some((body) => body.type === "data-agent-milestone"));
    await host.fetchJson("/test/gauge-gate?name=g1", { method: "POST" });
    await socket.waitFor(isFinished);
    socket.close();
    // 75% came within the throttle window of 50%: held, it went out as the turn ended, before the run's end.
    const progress = chunkBodies(socket.messages, "g1").flatMap((body) =>
      body.type === "data-agent-progress" ? [body.data?.["fraction"]] : [],
    );
    expect(progress).toEqual([0.5, 0.75]);
  });

  it("reports for its own run while another child object's run reports too (the isolate's one run context)", async () => {
    const host = await start();
    const base = "/agents/parent/p1";
    const socket = await RecordingSocket.open(wsUrl(host, base));
    // Two runs, two child objects in one isolate, their tools waiting at once.
    for (const runId of ["g1", "g2"]) {
      await host.fetchJson(`${base}/test/start?agent=Gauge&runId=${runId}&text=${runId}`, { method: "POST" });
    }
    const bodies = (runId: string, type: string) =>
      chunkBodies(socket.messages, runId).filter((body) => body.type === type);
    await socket.waitFor(() => ["g1", "g2"].every((runId) => bodies(runId, "data-agent-milestone").length > 0));
    for (const runId of ["g2", "g1"]) await host.fetchJson(`/test/gauge-gate?name=${runId}`, { method: "POST" });
    const finished = (runId: string) =>
      (socket.messages as AgentToolEventFrame[]).some(
        (frame) => frame.type === "agent-tool-event" && frame.event.kind === "finished" && frame.event.runId === runId,
      );
    await socket.waitFor(() => finished("g1") && finished("g2"));
    socket.close();
    for (const runId of ["g1", "g2"]) {
      expect(bodies(runId, "data-agent-milestone").map((body) => body.data?.["milestone"])).toEqual([
        `measuring ${runId}`,
      ]);
      expect(bodies(runId, "data-agent-progress").map((body) => body.data)).toContainEqual(
        expect.objectContaining({ fraction: 0.5, phase: `measuring ${runId}`, message: `half of ${runId}` }),
      );
    }
  });

  it("reports for the run whose turn runs the tool, with two runs live on one child object", async () => {
    const host = await start();
    const runs =
      await host.fetchJson<Record<string, { status: string; progress?: unknown; milestones: unknown[] }>>(
        "/test/gauge-pair",
      );
    for (const runId of ["a", "b"]) {
      expect(runs[runId]?.status).toBe("completed");
      expect(runs[runId]?.milestones).toEqual([expect.objectContaining({ name: `measuring ${runId}` })]);
      expect(runs[runId]?.progress).toMatchObject({ phase: `measuring ${runId}`, message: `half of ${runId}` });
    }
  });
});
