// The README's three-level test (its "Testing" section): src/readme-example.test.ts checks that the section's ```ts
// block is exactly the code between the two region markers below; vitest runs it here.
// #region three-level-test
import { type AgentToolTurnContext, agentTool } from "@agent-tools/core-runs";
import { conversationModel, inMemoryTree, ManualClock, type TreeAgent } from "@agent-tools/core-runs/testing";
import {
  convertToModelMessages,
  isStepCount,
  type LanguageModel,
  type ModelMessage,
  streamText,
  tool,
  toUIMessageStream,
} from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";

// A child's turn: its model over the tools its definition gives (`context.tools`).
const turnWith =
  (model: LanguageModel) =>
  async ({ messages, tools, abortSignal }: AgentToolTurnContext) =>
    toUIMessageStream({
      stream: streamText({
        model,
        messages: await convertToModelMessages(messages, { tools }),
        tools,
        stopWhen: isStepCount(4),
        abortSignal,
      }).stream,
      tools,
    });

const saved: string[] = [];

// The grandchild: saves its input as notes, with a tool that needs the user's approval.
const writer: TreeAgent = {
  agentType: "Writer",
  define: () => ({
    getTools: () => ({
      save: tool({
        description: "Save notes",
        inputSchema: z.object({ notes: z.string() }),
        needsApproval: true,
        execute: async ({ notes }) => {
          saved.push(notes);
          return "saved";
        },
      }),
    }),
    turn: turnWith(
      conversationModel(({ lastUserText, lastToolResults }) =>
        lastToolResults
          ? `Notes ${lastToolResults.get("save") ?? "not saved"}.`
          : { calls: [{ toolName: "save", input: { notes: lastUserText } }] },
      ),
    ),
  }),
};

// The child: researches a topic and has the Writer keep its findings (it dispatches: it lists its `children`).
const researcher: TreeAgent = {
  agentType: "Researcher",
  children: ["Writer"],
  define: ({ registry }) => ({
    getTools: () => ({
      write: agentTool(registry, "Writer", { description: "Keep notes", inputSchema: z.string() }),
    }),
    turn: turnWith(
      conversationModel(({ lastUserText, lastToolResults }) =>
        lastToolResults
          ? `${lastUserText} sleep a lot. ${lastToolResults.get("write")}`
          : { calls: [{ toolName: "write", input: `${lastUserText} sleep a lot` }] },
      ),
    ),
  }),
};

describe("a conversation whose child's child asks for approval", () => {
  it("asks the user at the top, and each turn goes on with the answer", async () => {
    const asked: string[] = [];
    const { registry, settle } = inMemoryTree([researcher, writer], new ManualClock(0), {
      hooks: {
        // What any run of the tree asks reaches the top; the user answers it there.
        onApproval: (run, approval) => {
          if (approval.status !== "pending") return;
          asked.push(`${approval.path.map((node) => node.agentType).join(" > ")}: ${approval.toolName}`);
          void registry.answerApproval(run.runId, approval.approvalId, { approved: asked.length === 1 });
        },
      },
    });

    // The conversation: one model answers every turn, deciding from the conversation so far.
    const tools = {
      research: agentTool(registry, researcher, { description: "Research a topic", inputSchema: z.string() }),
    };
    const assistant = conversationModel(({ lastUserText, lastToolResults }) =>
      lastToolResults
        ? String(lastToolResults.get("research"))
        : { calls: [{ toolName: "research", input: lastUserText }] },
    );
    const messages: ModelMessage[] = [];
    const say = async (text: string) => {
      messages.push({ role: "user", content: text });
      const result = streamText({ model: assistant, messages, tools, stopWhen: isStepCount(3) });
      const steps = await settle(Promise.resolve(result.steps));
      messages.push(...steps.flatMap((step) => step.response.messages));
      return result.text;
    };

    expect(await say("cats")).toBe("cats sleep a lot. Notes saved.");
    expect(await say("owls")).toBe("owls sleep a lot. Notes not saved.");
    expect(asked).toEqual(["Writer: save", "Writer: save"]);
    expect(saved).toEqual(["cats sleep a lot"]);
  });
});
// #endregion three-level-test
