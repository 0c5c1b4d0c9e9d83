// The origin page's static options on an AgentToolParent subclass (workerd): `static detachedMaxBudgetMs` bounds a
// detached run, `static agentToolReattachNoProgressTimeoutMs` sets start-up recovery's wait; neither is ignored.
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { withStaticOptions } from "../src/parent/parent-static-options.js";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-statics-");
const base = "/agents/statics/s1";
const longText = Array.from({ length: 40 }, (_, index) => `word${index}`).join(" ");

const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");
const TERMINAL = new Set(["finished", "error", "aborted", "interrupted"]);
const terminalOf = (messages: unknown[], runId: string) =>
  agentFrames(messages).find(
    (frame) => "runId" in frame.event && frame.event.runId === runId && TERMINAL.has(frame.event.kind),
  )?.event;

describe("the parent's static options", () => {
  it("static detachedMaxBudgetMs is a detached run's default budget: past it the run is interrupted", async () => {
    // The child says two words, then holds until cancelled: it never finishes by itself; the static budget is 400 ms.
    const running = await start({ ECHO_HOLD_AFTER: "2" });
    const events = await RecordingSocket.open(wsUrl(running, base));
    const started = await running.fetchJson<{ status: string }>(
      `${base}/test/start?runId=bg&detached=1&text=${encodeURIComponent(longText)}`,
      { method: "POST" },
    );
    expect(started.status).toBe("running");
    await events.waitFor((messages) => terminalOf(messages, "bg") !== undefined);
    events.close();
    expect(terminalOf(events.messages, "bg")).toMatchObject({ kind: "interrupted", reason: "budget-exceeded" });
  });

  it("static agentToolReattachNoProgressTimeoutMs = 0: after a restart a live child is not followed", async () => {
    // The child says two words, then holds until cancelled, before the restart and in the turn it resumes after it:
    // it is still running when the parent's start-up recovery looks at it, however slow the machine.
    const running = await start({ ECHO_HOLD_AFTER: "2" });
    const events = await RecordingSocket.open(wsUrl(running, base));
    await running.fetchJson(`${base}/test/start?runId=live&text=${encodeURIComponent(longText)}`, { method: "POST" });
    await events.waitFor((messages) => agentFrames(messages).some((frame) => frame.event.kind === "chunk"));
    events.close();
    await running.restart();

    const after = await RecordingSocket.open(wsUrl(running, base));
    await after.waitFor((messages) => terminalOf(messages, "live") !== undefined);
    after.close();
    // Followed (the default 2 min wait), it would not end within this test: the held child makes no progress.
    expect(terminalOf(after.messages, "live")).toMatchObject({
      kind: "interrupted",
      reason: "no-progress",
      childStillRunning: true,
    });
  });
});

describe("withStaticOptions", () => {
  class Base {
    static agentToolInspectTimeoutMs = 1_000;
    readonly kind = "parent";
  }
  class Configured extends Base {
    static detachedMaxBudgetMs = 7_200_000;
    static detachedNoProgressBudgetMs = 0;
    static agentToolReattachMaxWindowMs = 60_000;
    static unrelated = 1;
  }

  it("reads the statics of the class and its bases, and nothing else", () => {
    expect(withStaticOptions(Configured, { recovery: {}, detached: {} })).toEqual({
      recovery: { agentToolInspectTimeoutMs: 1_000, agentToolReattachMaxWindowMs: 60_000 },
      detached: { detachedMaxBudgetMs: 7_200_000, detachedNoProgressBudgetMs: 0 },
    });
    expect(withStaticOptions(class {}, { recovery: {}, detached: {} })).toEqual({ recovery: {}, detached: {} });
  });

  it("lets the options methods win, and keeps what they add", () => {
    const merged = withStaticOptions(Configured, {
      recovery: { agentToolReattachMaxWindowMs: 5_000, includeDetached: true },
      detached: { detachedMaxBudgetMs: 1_000, maxDeliveryAttempts: 2 },
    });
    expect(merged).toEqual({
      recovery: { agentToolInspectTimeoutMs: 1_000, agentToolReattachMaxWindowMs: 5_000, includeDetached: true },
      detached: { detachedMaxBudgetMs: 1_000, detachedNoProgressBudgetMs: 0, maxDeliveryAttempts: 2 },
    });
  });
});
