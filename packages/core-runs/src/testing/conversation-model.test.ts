import { isStepCount, type ModelMessage, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type ConversationView, conversationModel, lastToolResults, lastUserText } from "./conversation-model.js";

const tools = {
  lookup: tool({
    description: "Look a topic up",
    inputSchema: z.object({ topic: z.string() }),
    execute: async ({ topic }) => ({ topic, fact: `${topic} is well known` }),
  }),
};

/** Look the question up, then answer with what the lookup found. */
function lookupThenAnswer(seen: ConversationView[] = []) {
  return conversationModel((view) => {
    seen.push(view);
    const found = view.lastToolResults?.get("lookup") as { fact: string } | undefined;
    if (!found) return { text: "Looking. ", calls: [{ toolName: "lookup", input: { topic: view.lastUserText } }] };
    return `Answer: ${found.fact}.`;
  });
}

async function turn(model: ReturnType<typeof conversationModel>, messages: ModelMessage[]) {
  const result = streamText({ model, messages, tools, stopWhen: isStepCount(3) });
  // Each step's response messages: the assistant's calls, the tools' results, the answer.
  const steps = await result.steps;
  return { text: await result.text, messages: [...messages, ...steps.flatMap((step) => step.response.messages)] };
}

describe("conversationModel", () => {
  it("decides each step from the conversation, so one model answers several turns", async () => {
    const seen: ConversationView[] = [];
    const model = lookupThenAnswer(seen);
    const first = await turn(model, [{ role: "user", content: "cats" }]);
    expect(first.text).toBe("Answer: cats is well known.");
    const second = await turn(model, [...first.messages, { role: "user", content: "dogs" }]);
    expect(second.text).toBe("Answer: dogs is well known.");

    expect(seen.map((view) => [view.lastUserText, view.lastToolResults === null, view.turnResults.length])).toEqual([
      ["cats", true, 0],
      ["cats", false, 1],
      ["dogs", true, 0], // the first turn's result is in the prompt, but not the turn's
      ["dogs", false, 1],
    ]);
    // A fresh call id per call of the conversation: a parent's agent tool runs are idempotent by it.
    const ids = seen.flatMap((view) => view.turnResults.map((result) => result.toolCallId));
    expect(ids).toEqual(["call-1", "call-2"]);
  });

  it("gives a step asked again the same call ids (a cut step streamed again)", async () => {
    const model = lookupThenAnswer();
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "cats" }] }];
    const idsOf = async () => {
      const { stream } = await model.doStream({ prompt });
      const ids: string[] = [];
      for await (const part of stream as unknown as AsyncIterable<{ type: string; toolCallId?: string }>) {
        if (part.type === "tool-call" && part.toolCallId) ids.push(part.toolCallId);
      }
      return ids;
    };
    expect(await idsOf()).toEqual(["call-1"]);
    expect(await idsOf()).toEqual(["call-1"]);
  });

  it("reads the last user message and the step before's results", () => {
    expect(lastUserText([])).toBe("");
    expect(
      lastUserText([
        { role: "user", content: [{ type: "text", text: "first" }] },
        { role: "assistant", content: [{ type: "text", text: "ok" }] },
        { role: "user", content: [{ type: "text", text: "second" }] },
      ]),
    ).toBe("second");
    expect(lastToolResults([{ role: "user", content: [{ type: "text", text: "hi" }] }])).toBeNull();
    expect(
      lastToolResults([
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "a", toolName: "found", output: { type: "json", value: { n: 1 } } },
            { type: "tool-result", toolCallId: "b", toolName: "denied", output: { type: "execution-denied" } },
          ],
        },
      ]),
    ).toEqual(
      new Map<string, unknown>([
        ["found", { n: 1 }],
        ["denied", null],
      ]),
    );
  });
});
