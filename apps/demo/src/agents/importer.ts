import { type AgentToolTurnContext, delay } from "@agent-tools/core-runs";
import { createProgressReporter } from "@agent-tools/progress";
import type { UIMessage, UIMessageChunk } from "ai";
import { paceMs } from "../model/select-model.js";
import { DemoChild } from "./demo-child.js";
import type { Env } from "./env.js";

const ROWS_PER_BATCH = 100;

/** How many steps a resumed turn had completed (each completed step is one `step-start` part). */
function completedStepCount(messages: readonly UIMessage[]): number {
  const assistant = messages.find((message) => message.role === "assistant");
  return assistant?.parts.filter((part) => part.type === "step-start").length ?? 0;
}

/**
 * A workflow-style child with no model: it checks a schema, then "imports" batches, one step each, writing each
 * as text. It reports ephemeral progress per batch (fraction, message, phase; the row count as `data`, persisted on
 * its row) and durable milestones ("schema-checked", "half-way", "imported") that survive eviction and replay.
 * A turn resumed after an eviction skips the steps it had completed, so no milestone is reported twice.
 */
/** The Importer's own knob: `IMPORTER_PACE_MS` paces its steps alone (e.g. slow, so a test can cancel it). */
type ImporterEnv = Env & { IMPORTER_PACE_MS?: string };

export class Importer extends DemoChild<ImporterEnv> {
  static readonly agentType = "Importer";

  turn(context: AgentToolTurnContext) {
    const env = this.env;
    const pace = paceMs(env.IMPORTER_PACE_MS !== undefined ? { ...env, DEMO_PACE_MS: env.IMPORTER_PACE_MS } : env) * 5;
    const { input, messages, setOutput, abortSignal, clock } = context;
    const batches = Math.max(1, Math.min(20, Number((input as { batches?: number })?.batches ?? 5)));
    const halfWay = Math.ceil(batches / 2);
    const rows = batches * ROWS_PER_BATCH;
    // Step 0 checks the schema; step n imports batch n.
    const completed = completedStepCount(messages);
    const reportProgress = createProgressReporter(context, { clock: context.clock });
    setOutput({ batches, rows });

    // A generator runs only when the runner asks for the next chunk, i.e. once it has logged the previous one:
    // a milestone reported after a step's text takes the sequence after that text, and the step's finish-step
    // comes after the milestone, so a step the log holds as completed has its milestone logged too.
    async function* importChunks(): AsyncGenerator<UIMessageChunk> {
      yield { type: "start" };
      if (completed < 1) {
        await reportProgress({ fraction: 0, phase: "schema", message: "Checking the schema" });
        await delay(clock, pace, { abortSignal });
        yield* stepText("schema", "Schema checked. ");
        await reportProgress({ milestone: "schema-checked", phase: "schema", message: "Schema checked" });
        yield { type: "finish-step" };
      } else {
        const done = completed - 1;
        await reportProgress({ fraction: done / batches, phase: "rows", message: `Resuming after batch ${done}` });
      }
      for (let batch = Math.max(1, completed); batch <= batches; batch += 1) {
        await delay(clock, pace, { abortSignal });
        const fraction = batch / batches;
        const message = `Imported batch ${batch} of ${batches}`;
        const imported = { rows: batch * ROWS_PER_BATCH };
        yield* stepText(`batch-${batch}`, `${message}. `);
        await reportProgress({ fraction, message, phase: "rows", data: imported }, { persist: true });
        if (batch === halfWay && batch < batches) {
          await reportProgress({ milestone: "half-way", phase: "rows", message, fraction, data: imported });
        }
        if (batch === batches) {
          await reportProgress({
            milestone: "imported",
            phase: "done",
            message: `Imported ${rows} rows`,
            fraction: 1,
            data: { rows },
          });
        }
        yield { type: "finish-step" };
      }
      yield { type: "finish" };
    }
    // The wrapper sends a value still held by the throttle before the run ends, and clears its timer.
    return reportProgress.wrapTurnStream(importChunks());
  }

  override getAgentToolSummary({ output }: { output: unknown }) {
    return `Imported ${(output as { rows: number }).rows} rows`;
  }
}

function* stepText(id: string, text: string): Generator<UIMessageChunk> {
  yield { type: "start-step" };
  yield { type: "text-start", id };
  yield { type: "text-delta", id, delta: text };
  yield { type: "text-end", id };
}
