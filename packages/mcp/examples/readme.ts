import { AgentToolRegistry } from "@agent-tools/core-runs";
import { echoChild, InMemoryRunStore, InProcessChildTransport, ManualClock } from "@agent-tools/core-runs/testing";
import { createMcpTaskEndpoint } from "@agent-tools/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

// A parent's run registry and a child that answers in text, in-process. (On Cloudflare, `AgentToolParent` serves
// its `mcp()` tools at `/agents/<parent>/<name>/mcp`.)
const clock = new ManualClock(1_767_225_600_000);
const researcher = echoChild("Researcher");
const registry = new AgentToolRegistry({
  store: new InMemoryRunStore(),
  transport: new InProcessChildTransport({ children: [researcher], clock }),
  clock,
});
const endpoint = createMcpTaskEndpoint({
  registry,
  tools: {
    research: { child: researcher, description: "Research a topic", inputSchema: z.object({ topic: z.string() }) },
  },
  pollIntervalMs: 10,
  generateTaskId: () => "task-1",
});

// The MCP SDK's own client calls the tool as a task (here over an in-process fetch).
const client = new Client({ name: "readme", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL("https://parent.example/mcp"), {
    fetch: (url, init) => endpoint.handle(new Request(url, init)),
  }),
);
const { task } = await client.request(
  { method: "tools/call", params: { name: "research", arguments: { topic: "cats" }, task: {} } },
  CreateTaskResultSchema,
);
console.log(`task ${task.taskId} ${task.status} since ${task.createdAt}`);
const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
console.log(`result: ${result.content.map((part) => (part.type === "text" ? part.text : part.type)).join("")}`);
console.log(`task ${task.taskId} ${(await client.experimental.tasks.getTask(task.taskId)).status}`);
await client.close();
await endpoint.close();
