// Type-level test (type-checked by `tsconfig.workers.json`, never run): `AgentToolChild` declares its output and
// summary hooks with their real signature, so the origin page's positional form does not compile.
import { AgentToolChild } from "@agent-tools/cloudflare";
import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import type { AgentToolOutputContext, AgentToolSummaryContext } from "@agent-tools/core-runs/internal";
import type { UIMessageChunk } from "ai";

const extractions = new Map<string, { rows: number }>();

function emptyTurn(_context: AgentToolTurnContext): AsyncIterable<UIMessageChunk> {
  return (async function* () {})();
}

export class Extractor extends AgentToolChild {
  static readonly agentType = "Extractor";
  protected turn = emptyTurn;

  protected override getAgentToolOutput({ runId }: AgentToolOutputContext) {
    return extractions.get(runId);
  }

  protected override getAgentToolSummary({ output }: AgentToolSummaryContext) {
    return output ? "Extraction complete" : "";
  }
}

export class PositionalOutput extends AgentToolChild {
  protected turn = emptyTurn;

  // @ts-expect-error the origin page's getAgentToolOutput(runId): the hook takes { runId, input, output }
  protected override getAgentToolOutput(runId: string) {
    return extractions.get(runId);
  }
}

export class PositionalSummary extends AgentToolChild {
  protected turn = emptyTurn;

  // @ts-expect-error the origin page's getAgentToolSummary(runId, output): the hook takes { runId, output, text }
  protected override getAgentToolSummary(_runId: string, output: unknown) {
    return output ? "Extraction complete" : "";
  }
}
