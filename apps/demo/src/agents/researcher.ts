import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import { tool } from "ai";
import { z } from "zod";
import { lastToolResults, lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { DemoChild } from "./demo-child.js";
import type { Env } from "./env.js";
import { streamToolTurn } from "./tool-turn.js";

const FACTS: Record<string, string[]> = {
  default: ["it has been studied for decades", "experts disagree on the details", "new data arrives every year"],
  cats: ["cats sleep 12 to 16 hours a day", "a group of cats is called a clowder", "cats have 32 muscles in each ear"],
  rust: ["Rust guarantees memory safety without a garbage collector", "its borrow checker runs at compile time"],
};

/** Where a Researcher object counts its `lookup` executions (one object per run, so: per run). */
const LOOKUPS_KEY = "researcherLookups";

/** The facts the knowledge base has on `query`. */
function lookupFacts(query: string): { query: string; facts: string[] } {
  const key = Object.keys(FACTS).find((name) => query.toLowerCase().includes(name)) ?? "default";
  return { query, facts: FACTS[key] ?? [] };
}

/** A deterministic knowledge base: the Researcher's own server-side tool. */
export const lookupTool = tool({
  description: "Look up facts about a topic",
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => lookupFacts(query),
});

/**
 * `lookupTool` counting its executions in the child's durable storage, so tests can check that a turn resumed after
 * a restart did not run the tool again.
 */
function countedLookupTool(storage: DurableObjectStorage) {
  return tool({
    description: lookupTool.description ?? "Look up facts about a topic",
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      await storage.put(LOOKUPS_KEY, ((await storage.get<number>(LOOKUPS_KEY)) ?? 0) + 1);
      return lookupFacts(query);
    },
  });
}

/** The Researcher's own knob: `RESEARCHER_PACE_MS` paces its model alone (e.g. huge, to make it hang in tests). */
type ResearcherEnv = Env & { RESEARCHER_PACE_MS?: string };

/** A child that streams text and uses its own server-side tool (`lookup`). */
export class Researcher extends DemoChild<ResearcherEnv> {
  static readonly agentType = "Researcher";

  formatAgentToolInput(input: unknown) {
    const topic = (input as { topic?: unknown } | null)?.topic;
    return typeof topic === "string" ? topic : JSON.stringify(input);
  }

  async turn({ messages, tools, abortSignal, model: spend }: AgentToolTurnContext) {
    const env = this.env;
    const modelEnv = env.RESEARCHER_PACE_MS !== undefined ? { ...env, DEMO_PACE_MS: env.RESEARCHER_PACE_MS } : env;
    const model = selectModel(modelEnv, "researcher", (prompt) => {
      const results = lastToolResults(prompt);
      if (!results) {
        return {
          kind: "tools",
          text: "Looking that up. ",
          calls: [{ toolName: "lookup", input: { query: lastUserText(prompt) } }],
        };
      }
      const found = results.get("lookup") as { query?: string; facts?: string[] } | undefined;
      const facts = found?.facts ?? [];
      return {
        kind: "text",
        text: `Findings on "${found?.query ?? "the topic"}": ${facts.join("; ")}. That is what the sources say.`,
      };
    });
    return streamToolTurn({
      model: spend(model),
      system: "You are a careful researcher. Use the lookup tool, then report your findings briefly.",
      messages,
      tools,
      maxSteps: 4,
      abortSignal,
    });
  }

  /** The turn's tools (its `context.tools`, journaled): a call the model decided is never lost to a cut. */
  getTools() {
    return { lookup: countedLookupTool(this.ctx.storage) };
  }

  /** The drill-in JSON, plus `lookups`: how many times this run's `lookup` tool executed. */
  protected override async drillInSnapshot(runId: string): Promise<Record<string, unknown>> {
    return { ...(await super.drillInSnapshot(runId)), lookups: (await this.ctx.storage.get<number>(LOOKUPS_KEY)) ?? 0 };
  }
}
