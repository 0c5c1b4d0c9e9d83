import { describe, expect, it } from "vitest";
import { milestoneMessageId, resolveMilestones } from "./milestones.js";
import { createWorld, FakeChatHost } from "./test-harness.test-utils.js";

describe("onMilestones (chat hosts)", () => {
  it("resolves names and mode", () => {
    expect(resolveMilestones(["a", "a", "b", ""])).toEqual({
      names: ["a", "b"],
      mode: "narrate",
      source: "agent-tool:detached",
    });
    expect(resolveMilestones({ names: ["a"], mode: "react", source: "s" })).toEqual({
      names: ["a"],
      mode: "react",
      source: "s",
    });
    expect(resolveMilestones([])).toBeNull();
  });

  it("narrates each named milestone once on the live path, as an assistant line with no model turn", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    await world.parent.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "m-1",
      display: { name: "Importer" },
      detached: { onMilestones: ["schema-checked", "half-way"] },
    });
    await world.settle();
    await world.milestone("m-1", "schema-checked", "Schema checked");
    await world.milestone("m-1", "not-watched");
    await world.milestone("m-1", "half-way");
    await world.milestone("m-1", "half-way");
    await world.settle();
    // Before the run ends, with no tick.
    expect(world.parent.scheduler.wakeups).toBe(0);
    expect(chat.appended).toEqual([
      {
        id: milestoneMessageId("m-1", "schema-checked"),
        role: "assistant",
        text: 'Importer (m-1) reached "schema-checked": Schema checked.',
        source: "agent-tool:detached",
        run: {
          runId: "m-1",
          agentType: "Worker",
          name: "Importer",
          status: "running",
          outcome: "Schema checked",
          milestone: "schema-checked",
        },
      },
      {
        id: "agent-tool:detached:m-1:milestone:half-way",
        role: "assistant",
        text: 'Importer (m-1) reached "half-way".',
        source: "agent-tool:detached",
        run: { runId: "m-1", agentType: "Worker", name: "Importer", status: "running", milestone: "half-way" },
      },
    ]);
    expect(chat.turns).toBe(0);
    await world.complete("m-1");
    await world.settle();
    await world.advance(60_000);
    expect(chat.appended).toHaveLength(2);
  });

  it("react appends a user-role message and starts a model turn, once per name", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    await world.parent.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "m-2",
      detached: { onMilestones: { names: ["half-way"], mode: "react", source: "imports" } },
    });
    await world.settle();
    await world.milestone("m-2", "half-way");
    await world.milestone("m-2", "half-way");
    await world.settle();
    expect(chat.appended.map(({ role, source }) => ({ role, source }))).toEqual([{ role: "user", source: "imports" }]);
    expect(chat.turns).toBe(1);
  });

  it("an empty milestone text suppresses the message", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat, detached: { formatDetachedMilestone: () => "" } });
    await world.parent.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "m-3",
      detached: { onMilestones: { names: ["half-way"], mode: "react" } },
    });
    await world.settle();
    await world.milestone("m-3", "half-way");
    await world.settle();
    expect(chat.appended).toEqual([]);
    expect(chat.turns).toBe(0);
    expect(world.eventsOf("agent_tool:detached:milestone")).toEqual([
      expect.objectContaining({ name: "half-way", told: false }),
    ]);
  });

  it("after a restart: milestones reached while the parent was down are told once, later ones live, none twice", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "m-4",
      detached: { onMilestones: ["schema-checked", "half-way", "imported"], notify: true },
    });
    await world.settle();
    await world.milestone("m-4", "schema-checked");
    await world.settle();
    first.crash();
    await world.milestone("m-4", "half-way");

    const restartedChat = chat.restarted();
    const second = world.boot({ chatHost: restartedChat });
    await second.detached.start();
    await world.settle(second);
    await second.detached.tick();
    await world.settle(second);
    const names = () => restartedChat.appended.map((message) => message.id.replace("agent-tool:detached:m-4:", ""));
    expect(names()).toEqual(["milestone:schema-checked", "milestone:half-way"]);
    await world.milestone("m-4", "imported");
    await world.milestone("m-4", "half-way");
    await world.settle(second);
    expect(names()).toEqual(["milestone:schema-checked", "milestone:half-way", "milestone:imported"]);
    await world.complete("m-4");
    await world.settle(second);
    await world.advance(60_000, second);
    expect(names()).toEqual(["milestone:schema-checked", "milestone:half-way", "milestone:imported", "completed"]);
    expect(restartedChat.turns).toBe(1);
  });

  it("milestones the live path missed are caught up from the log when the run ends, before the completion", async () => {
    const chat = new FakeChatHost();
    const world = createWorld({ chatHost: chat });
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "m-5",
      detached: { onMilestones: ["half-way"], notify: true },
    });
    await world.settle();
    first.crash();
    await world.milestone("m-5", "half-way");
    await world.complete("m-5");
    const restartedChat = chat.restarted();
    const second = world.boot({ chatHost: restartedChat });
    await second.detached.start();
    await world.settle(second);
    expect(restartedChat.appended.map((message) => message.role)).toEqual(["assistant", "user"]);
    expect(restartedChat.appended.map((message) => message.id)).toEqual([
      "agent-tool:detached:m-5:milestone:half-way",
      "agent-tool:detached:m-5:completed",
    ]);
  });
});
