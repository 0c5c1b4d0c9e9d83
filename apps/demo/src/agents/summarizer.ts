import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import { convertToModelMessages, Output, streamText, toUIMessageStream, type UIMessageChunk } from "ai";
import { z } from "zod";
import { lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { DemoChild } from "./demo-child.js";
import type { Env } from "./env.js";

/** The Summarizer's structured output. */
export const summarySchema = z.object({
  title: z.string(),
  bullets: z.array(z.string()).min(1),
});
export type Summary = z.infer<typeof summarySchema>;

/** A child that returns structured output (validated by the parent's `outputSchema` too). */
export class Summarizer extends DemoChild<Env> {
  static readonly agentType = "Summarizer";

  formatAgentToolInput(input: unknown) {
    const text = (input as { text?: unknown } | null)?.text;
    return typeof text === "string" ? text : JSON.stringify(input);
  }

  async turn({ messages, abortSignal, model: spend, setOutput }: AgentToolTurnContext) {
    const model = selectModel(this.env, "summarizer", (prompt) => {
      const text = lastUserText(prompt).replace(/\s+/g, " ").trim();
      const summary: Summary = {
        title: `Summary of "${text.slice(0, 40)}"`,
        bullets: [
          `The request was: ${text.slice(0, 80)}`,
          "A researcher was asked for sources",
          "Findings follow below",
        ],
      };
      return { kind: "text", text: JSON.stringify(summary) };
    });
    const result = streamText({
      model: spend(model),
      system: "Summarize the request as JSON with a title and bullets.",
      messages: await convertToModelMessages(messages),
      output: Output.object({ schema: summarySchema }),
      abortSignal,
    });
    // Persist the structured output before the turn ends: the runner reads it right after.
    return toUIMessageStream({ stream: result.stream }).pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        async flush() {
          setOutput(await result.output);
        },
      }),
    );
  }

  override getAgentToolSummary({ output }: { output: unknown }) {
    const summary = output as Summary | undefined;
    return summary ? `${summary.title}: ${summary.bullets.join("; ")}` : "";
  }
}
