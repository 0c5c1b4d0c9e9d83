// Type-level test (type-checked by `tsconfig.workers.json`, never run): an app calling its parent over Durable Object
// RPC, through the stub type `wrangler types` generates (`DurableObjectStub<Parent>`), gets usable types: the runs
// (their display, progress data), cancel, clear, a run read token; and the conversation, annotated.
import { AgentToolParent, type ChatTurnContext } from "@agent-tools/cloudflare";
import type { UIMessage, UIMessageChunk } from "ai";

type Env = { ASSISTANT: DurableObjectNamespace<Assistant> };

export class Assistant extends AgentToolParent<Env> {
  protected children() {
    return {};
  }

  protected override onChatMessage(_context: ChatTurnContext): AsyncIterable<UIMessageChunk> {
    return (async function* () {})();
  }
}

export async function overRpc(env: Env): Promise<string[]> {
  const assistant: DurableObjectStub<Assistant> = env.ASSISTANT.get(env.ASSISTANT.idFromName("readme"));
  const runs = await assistant.listAgentToolRuns();
  const lines: string[] = runs.map((run) => `${run.runId} ${run.agentType} ${run.status} ${run.startedAt}`);
  const [first] = runs;
  const name: string | undefined = first?.display?.name;
  const preview: string | undefined = first?.inputPreview;
  const data = first?.progress?.data;
  const rows: number | undefined =
    typeof data === "object" && data !== null && !Array.isArray(data) && typeof data["rows"] === "number"
      ? data["rows"]
      : undefined;
  const hasRun: boolean = await assistant.hasAgentToolRun("Researcher", "r1");
  const cancelled: boolean = await assistant.cancelAgentTool("r1", "Stopped");
  const { runIds } = await assistant.clearAgentToolRuns({ status: ["completed"] });
  const { token, expiresAt } = await assistant.createRunReadToken("Researcher", "r1");
  // The AI SDK's UIMessage has `unknown` fields the RPC types refuse (the stub says `never`): say what comes back.
  const answer = (await assistant.sendChatMessage("How long do cats sleep?")) as UIMessage | null;
  const texts = (answer?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
  const messages = (await assistant.messages()) as UIMessage[];
  return [
    ...lines,
    name ?? "",
    preview ?? "",
    String(rows),
    String(hasRun),
    String(cancelled),
    ...runIds,
    token,
    String(expiresAt),
    ...texts,
    ...messages.map((message) => message.role),
  ];
}
