import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { tool } from "ai";
import { z } from "zod";
import { lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { DemoChild } from "./demo-child.js";
import type { Env } from "./env.js";
import { streamToolTurn } from "./tool-turn.js";

/** Where a Writer object keeps the files it saved (one object per run). */
const FILES_KEY = "writerFiles";

/** How the last `saveFile` call ended, from the prompt: its result, a denial (with the reason), or not yet. */
function saveOutcome(prompt: LanguageModelV4Prompt): { saved: unknown } | { denied: string } | null {
  const last = prompt.at(-1);
  if (last?.role !== "tool") return null;
  for (const part of last.content) {
    if (part.type !== "tool-result" || part.toolName !== "saveFile") continue;
    const { output } = part;
    if (output.type === "execution-denied") return { denied: output.reason ?? "no reason given" };
    return { saved: output.type === "json" || output.type === "text" ? output.value : null };
  }
  return null;
}

/**
 * A grandchild whose one tool, `saveFile`, needs approval (the AI SDK's `needsApproval`): its run pauses until someone
 * answers on the page — the request shows on the top-level card, with the path of agents that asks — and goes on
 * from there, whichever tab answered and however often the Worker restarted meanwhile.
 */
export class Writer extends DemoChild<Env> {
  static readonly agentType = "Writer";

  formatAgentToolInput(input: unknown) {
    const text = (input as { text?: unknown } | null)?.text;
    return typeof text === "string" ? text : JSON.stringify(input);
  }

  getTools() {
    const storage = this.ctx.storage;
    return {
      saveFile: tool({
        description: "Save a text file (needs the user's approval)",
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        needsApproval: true,
        execute: async ({ path, content }) => {
          const files = (await storage.get<Record<string, string>>(FILES_KEY)) ?? {};
          await storage.put(FILES_KEY, { ...files, [path]: content });
          return { path, bytes: new TextEncoder().encode(content).length };
        },
      }),
    };
  }

  async turn({ messages, tools, abortSignal, model: spend }: AgentToolTurnContext) {
    const model = selectModel(this.env, "writer", (prompt) => {
      const outcome = saveOutcome(prompt);
      if (outcome === null) {
        const content = lastUserText(prompt);
        return {
          kind: "tools",
          text: "I will save this as notes.md. ",
          calls: [{ toolName: "saveFile", input: { path: "notes.md", content } }],
        };
      }
      if ("denied" in outcome) return { kind: "text", text: `The file was not saved: ${outcome.denied}.` };
      const { path, bytes } = (outcome.saved ?? {}) as { path?: string; bytes?: number };
      return { kind: "text", text: `Saved ${path ?? "the file"} (${bytes ?? 0} bytes).` };
    });
    return streamToolTurn({
      model: spend(model),
      system: "You save the text you are given as a file, with the saveFile tool.",
      messages,
      tools,
      maxSteps: 3,
      abortSignal,
    });
  }
}
