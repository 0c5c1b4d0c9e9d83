// Type-level test (type-checked by `tsconfig.workers.json`, never run): `runAgentTool(child, { detached: { onFinish:
// "method" } })` called inside the parent subclass's own method type-checks with a method of that class taking
// `(run, result)`, and refuses any other name.
import { AgentToolChild, AgentToolParent, type ChatTurnContext } from "@agent-tools/cloudflare";
import type { AgentToolLifecycleResult, AgentToolRunInfo, AgentToolTurnContext } from "@agent-tools/core-runs";
import { tool, type UIMessageChunk } from "ai";
import { z } from "zod";

type Env = { IMPORTER: DurableObjectNamespace };

function emptyTurn(_context: AgentToolTurnContext): AsyncIterable<UIMessageChunk> {
  return (async function* () {})();
}

export class Importer extends AgentToolChild<Env> {
  static readonly agentType = "Importer";
  protected turn = emptyTurn;
}

export class Assistant extends AgentToolParent<Env> {
  readonly imported: string[] = [];

  protected children() {
    return { Importer: this.env.IMPORTER };
  }

  protected override onChatMessage(_context: ChatTurnContext) {
    return emptyTurn({} as AgentToolTurnContext);
  }

  // The cloudflare README's "Background runs" forms: a tool that dispatches in the background, and onFinish by name.
  protected override getTools() {
    return {
      startImport: tool({
        inputSchema: z.object({ batches: z.number().int().min(1) }),
        execute: async ({ batches }, { toolCallId }) => {
          const started = await this.runAgentTool(Importer, {
            input: { batches },
            runId: `import:${toolCallId}`,
            display: { name: "Background import" },
            detached: { notify: true, onMilestones: ["half-way"] },
          });
          return started.status === "error" ? { ok: false, error: started.error } : { ok: true, runId: started.runId };
        },
      }),
    };
  }

  async importNightly() {
    return this.runAgentTool(Importer, {
      input: { batches: 100 },
      detached: { onFinish: "onImportFinished", maxBudgetMs: 2 * 60 * 60 * 1000 },
    });
  }

  async onImportFinished(run: AgentToolRunInfo, result: AgentToolLifecycleResult) {
    if (result.status === "completed") this.imported.push(run.runId);
  }

  async importWithTypo() {
    // @ts-expect-error no method of this class is named so
    return this.runAgentTool(Importer, {
      input: { batches: 1 },
      detached: { onFinish: "onImportFinishd" },
    });
  }

  async importToAMethodOfAnotherShape() {
    // @ts-expect-error importFrom does not take (run, result)
    return this.runAgentTool(Importer, {
      input: { batches: 1 },
      detached: { onFinish: "importFrom" },
    });
  }

  importFrom(url: string) {
    return url;
  }

  async importAwaited() {
    const result = await this.runAgentTool(Importer, { input: { batches: 1 } });
    return result.ok;
  }

  async importDetachedTrue() {
    const started = await this.runAgentTool(Importer, { input: { batches: 1 }, detached: true });
    return started.status;
  }
}

// From outside the class, against a known parent: the same names.
export async function fromOutside(parent: Assistant) {
  await parent.runAgentTool(Importer, { input: {}, detached: { onFinish: "onImportFinished" } });
  // @ts-expect-error no such method
  await parent.runAgentTool(Importer, { input: {}, detached: { onFinish: "nope" } });
}
