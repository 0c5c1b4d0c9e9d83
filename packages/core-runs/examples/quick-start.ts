// The README's quick start, kept runnable: src/readme-example.test.ts checks that the README's first ```ts block is
// exactly the code between the two region markers below, and that running it prints the README's ```text block.
// #region quick-start
import {
  type AgentToolChildDefinition,
  type AgentToolEventFrame,
  AgentToolRegistry,
  agentTool,
} from "@agent-tools/core-runs";
import { InMemoryRunStore, InProcessChildTransport, ManualClock } from "@agent-tools/core-runs/testing";
import { convertToModelMessages, isStepCount, streamText, toUIMessageStream } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

// Scripted models, so that this runs offline. In your app, use real ones (e.g. `openai("gpt-5")`).
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const researcherModel = new MockLanguageModelV4({
  doStream: {
    stream: convertArrayToReadableStream([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Cats sleep 12 to 16 hours a day." },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
    ]),
  },
});
const parentModel = new MockLanguageModelV4({
  doStream: [
    // step 1: call the agent tool
    {
      stream: convertArrayToReadableStream([
        { type: "tool-call", toolCallId: "call-1", toolName: "research", input: '{"topic":"cat sleep"}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
      ]),
    },
    // step 2: answer with the tool's result
    {
      stream: convertArrayToReadableStream([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "According to my researcher, cats sleep 12 to 16 hours a day." },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
      ]),
    },
  ],
});

// 1. A child agent: each run turns its input into a user message and runs one turn of UIMessageChunks.
const researcher: AgentToolChildDefinition = {
  agentType: "Researcher",
  async turn({ messages, abortSignal }) {
    const result = streamText({
      model: researcherModel,
      messages: await convertToModelMessages(messages),
      abortSignal,
    });
    return toUIMessageStream({ stream: result.stream });
  },
};

// 2. The parent's registry, wired in-process with the testing ports (a host gives durable ones).
const clock = new ManualClock(1_767_225_600_000); // a fixed time: the example never reads the system clock
const frames: AgentToolEventFrame[] = [];
const registry = new AgentToolRegistry({
  store: new InMemoryRunStore(),
  transport: new InProcessChildTransport({ children: [researcher], clock }),
  clock,
  broadcast: (frame) => frames.push(frame), // a host sends these to the parent's clients
});

// 3. The child as an AI SDK tool of the parent's model.
const tools = {
  research: agentTool(registry, researcher, {
    description: "Research a topic and summarize the findings",
    inputSchema: z.object({ topic: z.string() }),
    displayName: "Researcher",
  }),
};
const result = streamText({ model: parentModel, prompt: "How long do cats sleep?", tools, stopWhen: isStepCount(3) });

console.log(`parent: ${await result.text}`);
const [firstStep] = await result.steps;
console.log(`tool result: ${JSON.stringify(firstStep?.toolResults[0]?.output)}`); // the child's summary
for (const run of await registry.listAgentToolRuns()) {
  console.log(`run: ${run.runId} ${run.agentType} ${run.status} (tool call ${run.parentToolCallId})`);
}
const described = frames.map((frame) => (frame.sequence === undefined ? frame.event.kind : `chunk#${frame.sequence}`));
console.log(`frames: ${described.join(" ")}`);
// #endregion quick-start
