// The conversation's side of the ChatHost port, on the engine: a synthetic message is stored with `metadata.source`
// and the run it is about (`metadata.run`), and told to every client.
import { readChatMessageRun } from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { EngineChatHost } from "./detached-chat-host.js";
import { setUpEngine } from "./engine-harness.test-utils.js";

describe("EngineChatHost", () => {
  it("stores a synthetic message with its source and the run it is about, once, and tells every client", async () => {
    const { engine, store, announced } = setUpEngine();
    const host = new EngineChatHost(engine);
    const run = { runId: "r1", agentType: "Importer", name: "Background import", status: "aborted" as const };
    const message = {
      id: "agent-tool:detached:r1:aborted",
      role: "user" as const,
      text: "Cancelled.",
      source: "s",
      run,
    };
    expect(await host.appendMessage(message)).toBe(true);
    expect(await host.appendMessage(message)).toBe(false);

    const stored = await store.messages();
    expect(stored).toEqual([
      { id: message.id, role: "user", metadata: { source: "s", run }, parts: [{ type: "text", text: "Cancelled." }] },
    ]);
    expect(readChatMessageRun(stored[0] ?? {})).toEqual(run);
    expect(announced).toEqual([{ kind: "message", message: stored[0] }]);
    // A message about no run carries its source alone.
    await host.appendMessage({ id: "note", role: "assistant", text: "Hello.", source: "s" });
    expect((await store.messages()).at(-1)?.metadata).toEqual({ source: "s" });
  });
});
