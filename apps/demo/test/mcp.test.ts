import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoHostSuite, releaseHold } from "./harness/demo.js";

type RunInfo = { runId: string; agentType: string; status: string };

describe("the demo's child tools over MCP, as tasks", () => {
  // Each Researcher holds after its second word until released or cancelled: a run that is surely live.
  const { host } = demoHostSuite({ DEMO_PACE_MS: "0", DEMO_MCP_POLL_MS: "50", DEMO_HOLD_AFTER: "Researcher:2" });
  let client: Client;
  const asked: Array<{ message: string }> = [];

  beforeAll(async () => {
    client = new Client(
      { name: "demo-mcp-test", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} }, tasks: { list: {}, cancel: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push({ message: request.params.message });
      return { action: "accept", content: { approved: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL("/agents/assistant/mcp/mcp", host.url)));
  });

  afterAll(async () => {
    await client?.close();
  });

  const callAsTask = (name: string, args: Record<string, unknown>) =>
    client.request({ method: "tools/call", params: { name, arguments: args, task: {} } }, CreateTaskResultSchema);
  const runs = () => host.fetchJson<RunInfo[]>("/agents/assistant/mcp/runs");
  const textOf = (result: { content: Array<{ type: string; text?: string }> }) =>
    result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

  it("lists the Assistant's child tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["research", "summarize", "edit", "importData"]);
  });

  it('runs "research cats" as a task, and cancels another research while it runs', async () => {
    const cats = (await callAsTask("research", { topic: "cats" })).task;
    const dogs = (await callAsTask("research", { topic: "dogs" })).task;
    expect([cats.status, dogs.status]).toEqual(["working", "working"]);

    expect(await client.experimental.tasks.cancelTask(dogs.taskId)).toMatchObject({ status: "cancelled" });
    const cancelled = await client.experimental.tasks.getTaskResult(dogs.taskId, CallToolResultSchema);
    expect(cancelled.isError).toBe(true);

    await releaseHold(host, cats.taskId);
    const result = await client.experimental.tasks.getTaskResult(cats.taskId, CallToolResultSchema);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("cats");
    expect(await client.experimental.tasks.getTask(cats.taskId)).toMatchObject({ status: "completed" });
    // The tasks are the Assistant's runs, shown on its page like any other.
    const byId = new Map((await runs()).map((run) => [run.runId, run]));
    expect(byId.get(cats.taskId)).toMatchObject({ agentType: "Researcher", status: "completed" });
    expect(byId.get(dogs.taskId)).toMatchObject({ agentType: "Researcher", status: "aborted" });
  });

  it('"write this down": the Writer\'s save is input_required, and the client approves it through elicitation', async () => {
    const { task } = await callAsTask("edit", { text: "buy milk" });
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(task.taskId)).status, { timeout: 30_000 })
      .toBe("input_required");
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(asked).toEqual([{ message: expect.stringMatching(/^Writer asks to run saveFile with .*notes\.md/) }]);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain("notes.md");
  });
});
