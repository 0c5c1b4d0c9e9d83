import { flushMicrotasks } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { completionMessageId, defaultFormatDetachedCompletion } from "./notify.js";
import { createWorld, FakeChatHost } from "./test-harness.test-utils.js";

describe("notify (chat hosts)", () => {
  it("appends one user-role message per (runId, status) with metadata.source and the run, and starts one model turn", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    const { detached } = world.parent;
    await detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "n-1",
      display: { name: "Importer" },
      detached: { notify: { source: "background-import" } },
    });
    await world.settle();
    await world.complete("n-1", "Imported 500 rows");
    await world.settle();
    expect(chat.appended).toEqual([
      {
        id: completionMessageId("n-1", "completed"),
        role: "user",
        text: "Background task Importer (n-1) completed: Imported 500 rows",
        source: "background-import",
        // Which run, by name, and how it ended: a client says so without reading the words, also once it is cleared.
        run: { runId: "n-1", agentType: "Worker", name: "Importer", status: "completed", outcome: "Imported 500 rows" },
      },
    ]);
    expect(chat.turns).toBe(1);
    expect(completionMessageId("n-1", "completed")).toBe("agent-tool:detached:n-1:completed");
  });

  it("a second delivery after the model answered merges with the first and starts no second turn", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", { input: 1, runId: "twice", detached: { notify: true } });
    await world.settle();
    // The process dies after the model's turn ended (its answer saved), before the ledger says delivered.
    const answer = chat.startTurn.bind(chat);
    chat.startTurn = async () => {
      await answer();
      await new Promise(() => {});
    };
    world.worker.run("twice").complete();
    await flushMicrotasks(300);
    expect(chat.appended).toHaveLength(1);
    expect(chat.turns).toBe(1);
    first.crash();
    const restartedChat = chat.restarted();
    const second = world.boot({ chatHost: restartedChat });
    await second.detached.start();
    await world.advance(60_000, second);
    expect(restartedChat.appended.map((message) => message.id)).toEqual(["agent-tool:detached:twice:completed"]);
    expect(restartedChat.appended[0]?.source).toBe("agent-tool:detached");
    expect(restartedChat.turns).toBe(1);
    expect(world.eventsOf("agent_tool:detached:delivered")).toEqual([
      expect.objectContaining({ runId: "twice", target: "notify", attempts: 2 }),
    ]);
  });

  it("a second delivery after a crash before the model answered starts the turn that was lost, once", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", { input: 1, runId: "cut", detached: { notify: true } });
    await world.settle();
    // The process dies during the model's turn: the message is in the chat, no answer, not marked delivered.
    chat.startTurn = () => new Promise(() => {});
    world.worker.run("cut").complete();
    await flushMicrotasks(300);
    expect(chat.appended).toHaveLength(1);
    first.crash();
    const restartedChat = chat.restarted();
    const second = world.boot({ chatHost: restartedChat });
    await second.detached.start();
    await world.advance(60_000, second);
    expect(restartedChat.appended.map((message) => message.id)).toEqual(["agent-tool:detached:cut:completed"]);
    expect(restartedChat.turns).toBe(1);
    expect((await restartedChat.messages()).map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(world.eventsOf("agent_tool:detached:delivered")).toEqual([
      expect.objectContaining({ runId: "cut", target: "notify", attempts: 2 }),
    ]);
  });

  it("an empty completion text suppresses the message; the delivery still settles", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({
      chatHost: chat,
      detached: { formatDetachedCompletion: (_run, result) => (result.status === "completed" ? "" : "x") },
    });
    await world.parent.detached.runAgentToolDetached("Worker", { input: 1, runId: "mute", detached: { notify: true } });
    await world.settle();
    await world.complete("mute");
    await world.settle();
    expect(chat.appended).toEqual([]);
    expect(chat.turns).toBe(0);
    expect(world.eventsOf("agent_tool:detached:delivered")).toHaveLength(1);
  });

  it("an explicit onFinish wins over notify", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "both",
      detached: { onFinish: "onDone", notify: true },
    });
    await world.settle();
    await world.complete("both");
    await world.settle();
    expect(host.statuses()).toEqual(["completed"]);
    expect(chat.appended).toEqual([]);
  });

  it("formats each terminal status by default", () => {
    const run = {
      runId: "r",
      agentType: "Worker",
      displayOrder: 0,
      status: "error" as const,
      revision: 3,
      startedAt: 0,
    };
    expect(defaultFormatDetachedCompletion(run, { status: "error", error: "boom" })).toBe(
      "Background task Worker (r) failed: boom",
    );
    expect(defaultFormatDetachedCompletion(run, { status: "aborted" })).toBe(
      "Background task Worker (r) was cancelled.",
    );
    expect(
      defaultFormatDetachedCompletion(run, { status: "interrupted", reason: "no-progress", error: "silent" }),
    ).toBe("Background task Worker (r) was interrupted (no-progress): silent");
  });
});
