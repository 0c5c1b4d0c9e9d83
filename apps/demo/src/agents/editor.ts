import type { ChildNamespace } from "@agent-tools/cloudflare";
import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import { z } from "zod";
import { lastToolResults, lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { DemoChild } from "./demo-child.js";
import type { Env } from "./env.js";
import { streamToolTurn } from "./tool-turn.js";
import { Writer } from "./writer.js";

/**
 * A child that runs an agent tool itself: it tidies the text it is given and has its `Writer` (the Assistant's
 * grandchild) save it — a write that needs the user's approval. Stop on the Assistant's turn ends the Writer first,
 * then the Editor.
 */
export class Editor extends DemoChild<Env> {
  static readonly agentType = "Editor";

  formatAgentToolInput(input: unknown) {
    const text = (input as { text?: unknown } | null)?.text;
    return typeof text === "string" ? text : JSON.stringify(input);
  }

  protected override children(): Record<string, ChildNamespace> {
    return { Writer: this.env.WRITER };
  }

  getTools() {
    return {
      write: this.agentTool(Writer, {
        description: "Have the Writer save a text as a file",
        inputSchema: z.object({ text: z.string().min(1) }),
        displayName: "Writer",
      }),
    };
  }

  async turn({ messages, tools, abortSignal, model: spend }: AgentToolTurnContext) {
    const model = selectModel(this.env, "editor", (prompt) => {
      const results = lastToolResults(prompt);
      if (!results) {
        const draft = tidy(lastUserText(prompt));
        return { kind: "tools", text: "Tidying the text. ", calls: [{ toolName: "write", input: { text: draft } }] };
      }
      const written = results.get("write");
      return { kind: "text", text: `Edited and handed to the Writer: ${describe(written)}` };
    });
    return streamToolTurn({
      model: spend(model),
      system: "You tidy a text, then have the Writer save it.",
      messages,
      tools,
      maxSteps: 3,
      abortSignal,
    });
  }
}

/** The text with its whitespace tidied and the request words before a colon dropped ("write this: …"). */
function tidy(text: string): string {
  const body = text.includes(":") ? text.slice(text.indexOf(":") + 1) : text;
  const tidied = body.replace(/\s+/g, " ").trim();
  return tidied === "" ? text.trim() : tidied;
}

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && (value as { ok?: unknown }).ok === false) {
    return `failed (${String((value as { status?: unknown }).status)}): ${String((value as { error?: unknown }).error)}`;
  }
  return JSON.stringify(value);
}
