// Stop reaches every descendant (issue 25), in workerd: the parent's turn calls `delegate` (a Middle child that runs
// agent tools itself), whose model calls three Echo grandchildren at once. A Stop of the turn while the grandchildren
// stream ends every run of the tree, aborted with the Stop's reason, the grandchildren before the Middle.
import type { AgentChatEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { chatSend, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type RunInfo = { runId: string; agentType: string; status: string; completedAt?: number };
type MiddleDrillIn = {
  dispatched: RunInfo[];
  results: Array<{ runId: string; ok: boolean; status: string; error?: string }>;
  run: { status: string } | null;
};

const startHost = hostWorkerPerTest("agent-tools-tree-stop-");

const chatEvents = (messages: unknown[]) =>
  (messages as AgentChatEventFrame[]).filter((frame) => frame.type === "agent-chat-event").map((frame) => frame.event);

describe("Stop with nested children", () => {
  it("aborts every run of the turn's tree with the reason, the grandchildren before their parent", async () => {
    // The grandchildren echo two words of their text, then hold until cancelled: they are live when Stop comes,
    // however slow the machine.
    const running = await startHost({ PARENT_TOOL: "delegate", ECHO_HOLD_AFTER: "2" });
    const base = "/agents/parent/tree-stop";
    const events = await RecordingSocket.open(wsUrl(running, base));
    const chat = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
    chat.send(chatSend("r1", "alpha beta gamma delta epsilon zeta eta theta iota kappa"));

    const middleRun = async () =>
      (await running.fetchJson<RunInfo[]>(`${base}/runs`)).find((run) => run.agentType === "Middle");
    await expect.poll(async () => (await middleRun())?.status, { timeout: 30_000 }).toBe("running");
    const middleId = (await middleRun())?.runId as string;
    const drillIn = () => running.fetchJson<MiddleDrillIn>(`${base}/sub/Middle/${encodeURIComponent(middleId)}`);
    await expect
      .poll(async () => (await drillIn()).dispatched.filter((run) => run.status === "running").length, {
        timeout: 30_000,
      })
      .toBe(3);

    const turnId = chatEvents(events.messages).find((event) => event.kind === "turn-started")?.turnId as string;
    expect(await running.fetchJson(`${base}/chat/stop/${turnId}`, { method: "POST" })).toEqual({ stopped: true });
    await events.waitFor((messages) => chatEvents(messages).some((event) => event.kind === "turn-ended"));

    // Every run of the tree ends aborted, with the Stop's reason.
    await expect.poll(async () => (await middleRun())?.status, { timeout: 30_000 }).toBe("aborted");
    const { dispatched, results } = await drillIn();
    expect(dispatched.map((run) => run.status)).toEqual(["aborted", "aborted", "aborted"]);
    for (const result of results)
      expect(result).toMatchObject({ ok: false, status: "aborted", error: "Stopped by the user" });
    const middleResult = await running.fetchJson<unknown[]>(
      `${base}/test/results?runs=${encodeURIComponent(middleId)}`,
    );
    expect(middleResult).toEqual([{ ok: false, status: "aborted", error: "Stopped by the user" }]);
    // From the leaves up: each grandchild's end is recorded before the Middle's.
    const middleEnded = (await middleRun())?.completedAt ?? 0;
    for (const run of dispatched) expect(run.completedAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(middleEnded);
    events.close();
    chat.close();
  });
});
