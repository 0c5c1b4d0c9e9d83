// The MCP endpoint in Node, driven by the SDK's own client over an in-process fetch: a call is a task at once,
// `tasks/get` and `tasks/result` follow the run, `tasks/cancel` ends it, progress arrives as notifications, an approval
// is `input_required` and answered through elicitation, and a parent started again goes on from the runs alone.
import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import { type ManualClock, ScriptedChild, textChunks } from "@agent-tools/core-runs/testing";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectClient, inMemoryPorts, lateTailPorts, MCP_URL, parentWithMcp } from "./endpoint.test-utils.js";

const clients: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function researcherTools(child: ScriptedChild) {
  return {
    research: { child: child.agentType, description: "Research a topic", inputSchema: z.object({ topic: z.string() }) },
  };
}

async function setUp() {
  const researcher = new ScriptedChild("Researcher");
  const ports = inMemoryPorts([researcher.definition]);
  const parent = parentWithMcp(researcherTools(researcher), ports);
  const client = await connectClient(parent.fetch);
  clients.push(client);
  return { researcher, ports, parent, client };
}

const callAsTask = (
  client: Awaited<ReturnType<typeof connectClient>>,
  topic: string,
  onprogress?: (p: unknown) => void,
) =>
  client.request(
    { method: "tools/call", params: { name: "research", arguments: { topic }, task: {} } },
    CreateTaskResultSchema,
    onprogress ? { onprogress } : {},
  );

/** A promise and the function that resolves it (a test's gate on something its client is told). */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("MCP tasks over a parent's runs", () => {
  it("lists the agent tools as tools that may run as tasks", async () => {
    const { client } = await setUp();
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      expect.objectContaining({
        name: "research",
        description: "Research a topic",
        execution: { taskSupport: "optional" },
        inputSchema: expect.objectContaining({ properties: { topic: { type: "string" } } }),
      }),
    ]);
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it("a call returns a task at once; tasks/get and tasks/result follow the run, which runs once", async () => {
    const { researcher, parent, client } = await setUp();
    const { task } = await callAsTask(client, "cats");
    expect(task).toMatchObject({ taskId: "task-1", status: "working", ttl: null, pollInterval: 5 });
    expect(task.createdAt).toBe("2026-01-01T00:00:00.000Z");
    // The task is a run of the parent's, with the call's arguments as its input.
    const run = researcher.run("task-1");
    expect((await run.context).input).toEqual({ topic: "cats" });
    expect(await client.experimental.tasks.getTask("task-1")).toMatchObject({ status: "working" });

    run.emit(...textChunks(["cats ", "purr"]));
    run.complete();
    const result = await client.experimental.tasks.getTaskResult("task-1", CallToolResultSchema);
    expect(result).toMatchObject({ content: [{ type: "text", text: "cats purr" }], isError: false });
    expect(result._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId: "task-1" } });
    expect(await client.experimental.tasks.getTask("task-1")).toMatchObject({ status: "completed" });
    expect(researcher.turns).toEqual(["task-1"]);
    expect((await parent.registry.getAgentToolRun("task-1"))?.status).toBe("completed");
    expect((await client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toEqual(["task-1"]);
  });

  it("refuses arguments that do not match the tool's schema before any run exists", async () => {
    const { parent, client } = await setUp();
    const refused = client.request(
      { method: "tools/call", params: { name: "research", arguments: { topic: 3 }, task: {} } },
      CreateTaskResultSchema,
    );
    await expect(refused).rejects.toThrow(/-32602/);
    expect(await parent.registry.listAgentToolRuns()).toEqual([]);
  });

  it("tasks/cancel cancels the run: the task is cancelled and its result says so", async () => {
    const { researcher, parent, client } = await setUp();
    await callAsTask(client, "dogs");
    await researcher.run("task-1").context;
    const cancelled = await client.experimental.tasks.cancelTask("task-1");
    expect(cancelled).toMatchObject({ taskId: "task-1", status: "cancelled" });
    expect((await parent.registry.getAgentToolRun("task-1"))?.status).toBe("aborted");
    const result = await client.experimental.tasks.getTaskResult("task-1", CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "Cancelled by the MCP client" }] });
    // A finished task cannot be cancelled again.
    await expect(client.experimental.tasks.cancelTask("task-1")).rejects.toThrow(/terminal status/);
  });

  it("progress and milestones reach the client that created the task, as progress notifications", async () => {
    const { researcher, client } = await setUp();
    const progress: Array<{ progress: number; message?: string }> = [];
    const statuses: string[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      statuses.push(notification.params.status);
    });
    const twoReports = gate();
    await callAsTask(client, "cats", (update) => {
      progress.push(update as { progress: number; message?: string });
      if (progress.length === 2) twoReports.open();
    });
    const run = researcher.run("task-1");
    const context = await run.context;
    context.appendChunk(
      { type: "data-agent-milestone", data: { name: "sources found", message: "3 sources", at: 1 } },
      {
        name: "sources found",
        message: "3 sources",
      },
    );
    const reading = { fraction: 0.5, message: "reading", at: 2 };
    context.publishEphemeral({ type: "data-agent-progress", data: reading, transient: true }, reading);
    await twoReports.opened;
    expect(progress).toEqual([
      { progress: 1, message: "milestone: sources found — 3 sources", _meta: expect.any(Object) },
      { progress: 2, message: "reading — 50%", _meta: expect.any(Object) },
    ]);
    run.complete();
    await client.experimental.tasks.getTaskResult("task-1", CallToolResultSchema);
    await expect.poll(() => statuses).toContain("completed");
  });

  // The parent's tail reaches a busy child after its milestone: the tail sends the milestone's entry, then starts from
  // the run's latest progress — a snapshot that names the milestone again (stamped with the entry's time, and holding
  // the bar the run reported before). That snapshot tells the client nothing of the milestone it has not been told.
  it.each([
    {
      case: "the milestone's entry is stamped a millisecond after its report (a busy machine)",
      before: async (_context: AgentToolTurnContext, clock: ManualClock) => {
        const reportedAt = clock.now();
        await clock.advanceBy(1);
        return reportedAt;
      },
      told: ["milestone: sources found", "reading — 50%"],
    },
    {
      case: "the run reported progress before the tail attached",
      before: async (context: AgentToolTurnContext, clock: ManualClock) => {
        const searching = { fraction: 0.2, message: "searching", at: clock.now() };
        context.publishEphemeral({ type: "data-agent-progress", data: searching, transient: true }, searching);
        return clock.now();
      },
      told: ["milestone: sources found", "searching — 20%", "reading — 50%"],
    },
  ])("a milestone is told once when the parent's tail attaches after it: $case", async ({ before, told }) => {
    const researcher = new ScriptedChild("Researcher");
    const ports = lateTailPorts([researcher.definition]);
    const parent = parentWithMcp(researcherTools(researcher), ports);
    const client = await connectClient(parent.fetch);
    clients.push(client);
    const messages: string[] = [];
    const first = gate();
    const reading = gate();
    await callAsTask(client, "cats", (update) => {
      const { message } = update as { message: string };
      messages.push(message);
      first.open();
      if (message.startsWith("reading")) reading.open();
    });
    const run = researcher.run("task-1");
    const context = await run.context;
    const reportedAt = await before(context, ports.clock);
    context.appendChunk(
      { type: "data-agent-milestone", data: { milestone: "sources found", at: reportedAt } },
      {
        name: "sources found",
      },
    );
    ports.transport.attach();
    // Live progress after the tail has attached (what it started with is ahead of it).
    await first.opened;
    const half = { fraction: 0.5, message: "reading", at: ports.clock.now() };
    context.publishEphemeral({ type: "data-agent-progress", data: half, transient: true }, half);
    await reading.opened;
    expect(messages).toEqual(told);
    run.complete();
    await client.experimental.tasks.getTaskResult("task-1", CallToolResultSchema);
  });

  it("answers 404 to a session it does not know, so the client initializes again", async () => {
    const { parent } = await setUp();
    const response = await parent.fetch(MCP_URL, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "gone",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
  });

  it("a parent started again goes on from its runs: a new client follows the task by id, never re-running the child", async () => {
    const { researcher, ports, client } = await setUp();
    await callAsTask(client, "owls");
    const run = researcher.run("task-1");
    await run.context;
    run.emit(...textChunks(["owls ", "hoot"]).slice(0, 4));

    // The parent's process is gone (its registry and sessions with it); its storage and its child are not.
    const restarted = parentWithMcp(researcherTools(researcher), ports);
    await restarted.registry.waitForAgentToolRun("unknown");
    const again = await connectClient(restarted.fetch);
    clients.push(again);
    expect(await again.experimental.tasks.getTask("task-1")).toMatchObject({ status: "working" });
    const result = again.experimental.tasks.getTaskResult("task-1", CallToolResultSchema);
    run.emit(...textChunks(["owls ", "hoot"]).slice(4));
    run.complete();
    expect(await result).toMatchObject({ content: [{ type: "text", text: "owls hoot" }] });
    expect(researcher.turns).toEqual(["task-1"]);
    // The old session is not the new parent's.
    expect(restarted.endpoint.sessions).toBe(1);
  });

  it("an approval in the run's tree is input_required, asked by elicitation on tasks/result, and the answer goes on", async () => {
    const { researcher, parent, client } = await setUp();
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { approved: true } };
    });
    await callAsTask(client, "write it");
    const run = researcher.run("task-1");
    await run.context;
    const approval = {
      approvalId: "a1",
      toolCallId: "w1",
      toolName: "write",
      input: { path: "notes.txt" },
      path: [{ agentType: "Writer", runId: "w" }],
      status: "pending",
      at: 5,
    };
    run.emit({ type: "data-agent-approval", id: "a1", data: approval } as never);
    await expect.poll(async () => (await client.experimental.tasks.getTask("task-1")).status).toBe("input_required");
    expect(await client.experimental.tasks.getTask("task-1")).toMatchObject({
      statusMessage: 'Writer asks to run write with {"path":"notes.txt"}: approve?',
    });
    const answered: unknown[] = [];
    parent.registry.answerApproval = async (runId, approvalId, answer) => {
      answered.push({ runId, approvalId, answer });
      run.emit({ type: "data-agent-approval", id: "a1", data: { ...approval, status: "approved", at: 6 } } as never);
      run.emit(...textChunks(["wrote it"]));
      run.complete();
      return true;
    };
    const result = await client.experimental.tasks.getTaskResult("task-1", CallToolResultSchema);
    expect(asked).toEqual([
      expect.objectContaining({
        mode: "form",
        message: 'Writer asks to run write with {"path":"notes.txt"}: approve?',
        _meta: expect.objectContaining({ "io.modelcontextprotocol/related-task": { taskId: "task-1" } }),
      }),
    ]);
    expect(answered).toEqual([{ runId: "task-1", approvalId: "a1", answer: { approved: true } }]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "wrote it" }] });
  });
});
