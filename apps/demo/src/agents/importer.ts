import type { AgentToolChildDefinition } from "@agent-tools/core-runs";
import { simulateReadableStream, type UIMessageChunk } from "ai";
import { paceMs } from "../model/select-model.js";
import { AgentToolChildObject } from "./agent-tool-child-object.js";
import type { Env } from "./env.js";

/** A workflow-style child with no model: it "imports" batches and reports each as text. */
export class Importer extends AgentToolChildObject<Env> {
  static readonly agentType = "Importer";

  protected definition(): AgentToolChildDefinition {
    const pace = paceMs(this.env) * 5;
    return {
      agentType: Importer.agentType,
      turn({ input, setOutput }) {
        const batches = Math.max(1, Math.min(20, Number((input as { batches?: number })?.batches ?? 5)));
        const chunks: UIMessageChunk[] = [{ type: "start" }, { type: "start-step" }, { type: "text-start", id: "log" }];
        for (let batch = 1; batch <= batches; batch += 1) {
          chunks.push({ type: "text-delta", id: "log", delta: `Imported batch ${batch} of ${batches}. ` });
        }
        chunks.push({ type: "text-end", id: "log" }, { type: "finish-step" }, { type: "finish" });
        setOutput({ batches, rows: batches * 100 });
        return simulateReadableStream({ chunks, chunkDelayInMs: pace, initialDelayInMs: 0 });
      },
      getAgentToolSummary: ({ output }) => `Imported ${(output as { rows: number }).rows} rows`,
    };
  }
}
