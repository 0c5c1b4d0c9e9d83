import { HttpAgent } from "@ag-ui/client";
import { agUiResponse } from "@agent-tools/ag-ui";
import { AgentToolRegistry } from "@agent-tools/core-runs";
import { echoChild, InMemoryRunStore, InProcessChildTransport, ManualClock } from "@agent-tools/core-runs/testing";

// A parent's run registry and a child that answers in text, in-process. (On Cloudflare, `AgentToolParent` serves
// the same stream at `GET /agents/<parent>/<name>/ag-ui`.)
const clock = new ManualClock(1_767_225_600_000);
const researcher = echoChild("Researcher");
const registry = new AgentToolRegistry({
  store: new InMemoryRunStore(),
  transport: new InProcessChildTransport({ children: [researcher], clock }),
  clock,
});
await registry.runAgentTool(researcher, { input: "cats", runId: "run-1", parentToolCallId: "call-1" });

// @ag-ui/client's HttpAgent reads the AG-UI stream of the registry's runs (here from an in-process fetch).
const agent = new HttpAgent({
  url: "https://parent.example/ag-ui",
  fetch: async () => agUiResponse({ threadId: "readme", replay: (push) => registry.replayAgentToolRuns(push) }),
});
await agent.runAgent(
  {},
  {
    onEvent: ({ event }) => {
      const { type, subagentRunId, delta } = event as { type: string; subagentRunId?: string; delta?: string };
      console.log([type, subagentRunId, delta].filter((part) => part !== undefined).join(" "));
    },
  },
);
