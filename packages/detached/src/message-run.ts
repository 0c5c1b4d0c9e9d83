import type { AgentChatMessageRun, AgentToolRunInfo } from "@agent-tools/core-runs";

/** The name a run goes by in the chat: its display name, else its agent type. */
export function detachedRunName(run: AgentToolRunInfo): string {
  return typeof run.display?.name === "string" && run.display.name !== "" ? run.display.name : run.agentType;
}

/**
 * What a message about a run says of it for clients (`metadata.run`): which run, its name, how it stands and, for a
 * completion, its summary or error.
 */
export function messageRun(
  run: AgentToolRunInfo,
  state: { status: AgentChatMessageRun["status"]; outcome?: string | undefined; milestone?: string },
): AgentChatMessageRun {
  return {
    runId: run.runId,
    agentType: run.agentType,
    name: detachedRunName(run),
    status: state.status,
    ...(state.outcome ? { outcome: state.outcome } : {}),
    ...(state.milestone !== undefined ? { milestone: state.milestone } : {}),
  };
}
