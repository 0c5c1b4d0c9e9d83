// MCP Tasks in workerd (issue 34), with the SDK's own client: the parent's agent tools are MCP tools on its
// Streamable HTTP endpoint; a call returns a task at once; `tasks/get` and `tasks/result` follow the durable run across
// a kill of workerd (a new client, the task by id), never re-running the child; progress and milestones arrive as
// progress notifications; `tasks/cancel` ends the run's tree; an approval far down the tree is `input_required`,
// survives a kill, and is answered through elicitation, reaching the same durable approval as the HTTP route.
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { hostWorkerPerTest } from "./host-worker-harness.js";

type RunInfo = { runId: string; agentType: string; status: string };

const startHost = hostWorkerPerTest("agent-tools-mcp-");
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The SDK's client on the parent `name`'s MCP endpoint; `streamOpen` resolves once its own stream (GET) is open. */
async function connect(running: MiniflareHost, name: string, headers: Record<string, string> = {}) {
  let opened: () => void = () => undefined;
  const streamOpen = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const client = new Client(
    { name: "mcp-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} }, tasks: { list: {}, cancel: {} } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`/agents/parent/${name}/mcp`, running.url), {
    requestInit: { headers },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (init?.method === "GET" && response.ok) opened();
      return response;
    },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, streamOpen };
}

/** A promise and the function that resolves it (a test's gate on something its client is told). */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const callAsTask = (client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
  client.request(
    { method: "tools/call", params: { name, arguments: args, task: {} } },
    CreateTaskResultSchema,
    onprogress ? { onprogress } : {},
  );

/** Resolves once task `taskId` has `status` (tasks/get, as a client polls it). */
const untilStatus = (client: Client, taskId: string, status: string) =>
  expect.poll(async () => (await client.experimental.tasks.getTask(taskId)).status, { timeout: 30_000 }).toBe(status);

const runsOf = (running: MiniflareHost, name: string) => running.fetchJson<RunInfo[]>(`/agents/parent/${name}/runs`);

describe("MCP tasks on a parent (workerd)", () => {
  it("is authorized by the parent's authorize hook, as every route is", async () => {
    const running = await startHost({ PARENT_KEY: "secret" });
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    };
    const refused = await running.fetch("/agents/parent/mcp-auth/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(initialize),
    });
    expect(refused.status).toBe(401);
    await expect(connect(running, "mcp-auth")).rejects.toThrow(/Unauthorized/);
    const { client } = await connect(running, "mcp-auth", { authorization: "Bearer secret" });
    expect((await client.listTools()).tools.length).toBe(3);
  });

  it("a call is a task at once, and the task survives a kill while it runs: the same run finishes, once", async () => {
    const running = await startHost({ ECHO_HOLD_AFTER: "2" });
    const { client } = await connect(running, "mcp-run");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.execution?.taskSupport])).toEqual([
      ["echo", "optional"],
      ["gauge", "optional"],
      ["relay", "optional"],
    ]);
    const { task } = await callAsTask(client, "echo", { text: "hello kind world" });
    expect(task).toMatchObject({ status: "working", ttl: null, pollInterval: 50 });
    // The task is the parent's run, and it is live (the Echo holds after two words).
    const [run] = await runsOf(running, "mcp-run");
    expect(run).toMatchObject({ runId: task.taskId, agentType: "Echo" });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "working" });

    await running.killAndRestart();

    // A new client (the old session went with the process) follows the same task by id.
    const { client: again } = await connect(running, "mcp-run");
    expect(await again.experimental.tasks.getTask(task.taskId)).toMatchObject({
      taskId: task.taskId,
      status: "working",
      createdAt: task.createdAt,
    });
    const result = again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await running.fetchJson("/test/echo-release", { method: "POST" });
    expect(await result).toMatchObject({ content: [{ type: "text", text: "#1 hello kind world" }], isError: false });
    expect(await again.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" });
    // One run throughout; reading the task never started another.
    expect(await runsOf(running, "mcp-run")).toEqual([
      expect.objectContaining({ runId: task.taskId, status: "completed" }),
    ]);
    const listed = await again.experimental.tasks.listTasks();
    expect(listed.tasks.map((listedTask) => [listedTask.taskId, listedTask.status])).toEqual([
      [task.taskId, "completed"],
    ]);
  });

  it("sends a task's milestones and progress to its client as progress notifications", async () => {
    const running = await startHost();
    const { client, streamOpen } = await connect(running, "mcp-progress");
    await streamOpen;
    const progress: Progress[] = [];
    const both = gate();
    const { task } = await callAsTask(client, "gauge", { text: "rain" }, (update) => {
      progress.push(update);
      if (progress.length === 2) both.open();
    });
    // The Gauge reports a milestone, waits at its gate, then reports half done.
    await running.fetch("/test/gauge-gate?name=rain", { method: "POST" });
    await both.opened;
    expect(progress.map(({ progress: count, message }) => [count, message])).toEqual([
      [1, "milestone: measuring rain"],
      [2, "half of rain — 50%"],
    ]);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ content: [{ type: "text", text: "rain done" }] });
  });

  it("tells a milestone once when the parent's tail reaches the child after it (the run's snapshot names it again)", async () => {
    // The Gauge reports 10%, then its milestone, and only then does the parent's tail attach: the tail sends the
    // milestone's entry and starts from the run's latest snapshot (10%, and the milestone's name).
    const running = await startHost({ GAUGE_LATE_TAIL: "1" });
    const { client, streamOpen } = await connect(running, "mcp-late-tail");
    await streamOpen;
    const told: string[] = [];
    const first = gate();
    const half = gate();
    const { task } = await callAsTask(client, "gauge", { text: "rain" }, ({ message }) => {
      told.push(message ?? "");
      first.open();
      if (message?.startsWith("half")) half.open();
    });
    // Past the gate once the tail has attached: the half is live, after what the tail started from.
    await first.opened;
    await running.fetch("/test/gauge-gate?name=rain", { method: "POST" });
    await half.opened;
    // The entry and the snapshot may come in either order (the entry reaches a tail once it is written).
    expect(told.slice(0, 2).sort()).toEqual(["milestone: measuring rain", "starting — 10%"]);
    expect(told.slice(2)).toEqual(["half of rain — 50%"]);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ content: [{ type: "text", text: "rain done" }] });
  });

  it("tasks/cancel ends the run's whole tree (a Stop): the task is cancelled, nothing below it runs on", async () => {
    const running = await startHost();
    const { client } = await connect(running, "mcp-cancel");
    const { task } = await callAsTask(client, "relay", { text: "stop me", depth: 2 });
    // The Writer at the bottom asks for approval: the tree is live three levels down.
    await untilStatus(client, task.taskId, "input_required");
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: "cancelled" });
    expect(await runsOf(running, "mcp-cancel")).toEqual([expect.objectContaining({ status: "aborted" })]);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true });
    // Nothing was written: the Writer's request died with its tree.
    expect(await running.fetchJson<Record<string, number>>("/probe/counts")).not.toHaveProperty("writer-write");
  });

  it("an approval three levels down is input_required, survives a kill, and is answered through elicitation", async () => {
    const running = await startHost();
    const { client } = await connect(running, "mcp-approve");
    const { task } = await callAsTask(client, "relay", { text: "hello", depth: 2 });
    await untilStatus(client, task.taskId, "input_required");

    await running.killAndRestart();

    // A new client: the task waits for input again once the parent has re-attached to its run (its copy of the log
    // may have lacked the request when workerd was killed; the child's log has it).
    const { client: again } = await connect(running, "mcp-approve");
    await untilStatus(again, task.taskId, "input_required");
    const waiting = await again.experimental.tasks.getTask(task.taskId);
    expect(waiting).toMatchObject({
      status: "input_required",
      statusMessage: 'Writer asks to run write with {"text":"hello"}: approve?',
    });
    const asked: unknown[] = [];
    again.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { approved: true } };
    });
    // tasks/result asks the pending approval (elicitation), then waits for the run's end.
    const result = await again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(asked).toEqual([expect.objectContaining({ mode: "form", message: waiting.statusMessage })]);
    expect(result).toMatchObject({
      isError: false,
      content: [{ type: "text", text: expect.stringContaining("wrote hello") }],
    });
    // The same durable approval as the HTTP route's: answered once, so the route finds nothing left to answer.
    const approvalId = (asked[0] as { _meta: Record<string, { approvalId: string }> })._meta["dev.agent-tools/approval"]
      ?.approvalId;
    const route = await running.fetch(`/agents/parent/mcp-approve/approve/${task.taskId}/${approvalId}`, {
      method: "POST",
      body: JSON.stringify({ approved: false }),
    });
    expect(await route.json()).toEqual({ answered: false });
    // One write, by the same Writer run; one top-level run.
    expect(await running.fetchJson<Record<string, number>>("/probe/counts")).toMatchObject({ "writer-write": 1 });
    expect((await runsOf(running, "mcp-approve")).length).toBe(1);
  });
});
