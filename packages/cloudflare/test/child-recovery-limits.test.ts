// A child's recovery limits are its own to set (issue 24): `AgentToolChild`'s `maxRecoveryAttempts` bounds how often a
// turn cut by a restart is resumed. The test host's `Echo` takes it from `ECHO_MAX_RECOVERY_ATTEMPTS`.
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-child-recovery-limits-");

const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");
const isTerminal = (frame: AgentToolEventFrame) => ["finished", "error", "aborted"].includes(frame.event.kind);

describe("a child's maxRecoveryAttempts", () => {
  it("ends a cut run as error instead of resuming it when the child allows no recovery", async () => {
    // The child says two words, then holds until cancelled: it is cut by the restart, however slow the machine.
    const host = await start({ ECHO_HOLD_AFTER: "2", ECHO_MAX_RECOVERY_ATTEMPTS: "0" });
    const base = "/agents/parent/p1";
    const before = await RecordingSocket.open(wsUrl(host, base));
    await host.fetchJson(`${base}/test/start?runId=cut&text=${encodeURIComponent("one two three four five six")}`, {
      method: "POST",
    });
    await before.waitFor((messages) =>
      agentFrames(messages).some((frame) => frame.event.kind === "chunk" && frame.event.body.type === "text-delta"),
    );
    before.close();
    // Without the hold from now on: a child that resumed the run anyway would finish it, not hold.
    await host.restart({ ECHO_MAX_RECOVERY_ATTEMPTS: "0" });

    const after = await RecordingSocket.open(wsUrl(host, base));
    await after.waitFor((messages) => agentFrames(messages).some(isTerminal));
    after.close();
    const terminal = agentFrames(after.messages).find(isTerminal);
    expect(terminal?.event).toMatchObject({ kind: "error", error: "interrupted before the child could finish" });
  });
});
