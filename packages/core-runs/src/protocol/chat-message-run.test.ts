import { describe, expect, it } from "vitest";
import { readChatMessageRun } from "./chat-message-run.js";

describe("readChatMessageRun", () => {
  it("reads the run a message is about from metadata.run", () => {
    const run = { runId: "r1", agentType: "Importer", name: "Background import", status: "completed", outcome: "Done" };
    expect(readChatMessageRun({ metadata: { source: "agent-tool:detached", run } })).toEqual(run);
    const milestone = {
      runId: "r1",
      agentType: "Importer",
      name: "Importer",
      status: "running",
      milestone: "half-way",
    };
    expect(readChatMessageRun({ metadata: { run: milestone } })).toEqual(milestone);
  });

  it("answers null for a message that names no run, or a malformed one, and never throws", () => {
    expect(readChatMessageRun({})).toBeNull();
    expect(readChatMessageRun({ metadata: { source: "agent-tool:detached" } })).toBeNull();
    expect(readChatMessageRun({ metadata: "run" })).toBeNull();
    expect(readChatMessageRun({ metadata: { run: { runId: "r1", agentType: "A", name: "A" } } })).toBeNull();
    expect(
      readChatMessageRun({ metadata: { run: { runId: "r1", agentType: "A", name: "A", status: "finished" } } }),
    ).toBeNull();
    expect(
      readChatMessageRun({ metadata: { run: { runId: 1, agentType: "A", name: "A", status: "running" } } }),
    ).toBeNull();
    // Fields of the wrong type are left out, not passed on.
    expect(
      readChatMessageRun({
        metadata: { run: { runId: "r1", agentType: "A", name: "A", status: "error", outcome: 3 } },
      }),
    ).toEqual({ runId: "r1", agentType: "A", name: "A", status: "error" });
  });
});
