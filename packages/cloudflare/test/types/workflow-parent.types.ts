// Type-level test (type-checked by `tsconfig.workers.json`, never run): a parent with only workflow tools (runs
// started from its own methods, no conversation) needs no `onChatMessage`; one that defines it still gets it checked.
import { AgentToolChild, AgentToolParent, type ChatTurnContext } from "@agent-tools/cloudflare";
import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";

type Env = { IMPORTER: DurableObjectNamespace };

function emptyTurn(_context: AgentToolTurnContext | ChatTurnContext): AsyncIterable<UIMessageChunk> {
  return (async function* () {})();
}

export class Importer extends AgentToolChild<Env> {
  static readonly agentType = "Importer";
  protected turn = emptyTurn;
}

export class Pipeline extends AgentToolParent<Env> {
  protected children() {
    return { Importer: this.env.IMPORTER };
  }

  async importNightly() {
    return this.runAgentTool(Importer, { input: { batches: 100 } });
  }
}

export class Chatty extends AgentToolParent<Env> {
  protected children() {
    return { Importer: this.env.IMPORTER };
  }

  protected override onChatMessage(context: ChatTurnContext) {
    return emptyTurn(context);
  }
}

export class WrongTurn extends AgentToolParent<Env> {
  protected children() {
    return { Importer: this.env.IMPORTER };
  }

  // @ts-expect-error a turn takes the ChatTurnContext
  protected override onChatMessage(text: string) {
    return emptyTurn({} as ChatTurnContext) && text;
  }
}
