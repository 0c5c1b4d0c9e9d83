import { isRunStatus, type RunStatus } from "./status.js";

/**
 * The run a message the server adds to a chat is about (a detached run's completion or milestone), stored on the
 * message as `metadata.run`: so that a client names the run and says how it stands from the message alone — also once
 * the run is cleared from the registry — instead of reading the message's words.
 *
 * @experimental New API: it may change without a major version.
 */
export type AgentChatMessageRun = {
  runId: string;
  agentType: string;
  /** The run's display name (`display.name`), else its agent type. */
  name: string;
  /** A completion's end status; `running` for a milestone. */
  status: RunStatus;
  /** A completion's summary, or its error. */
  outcome?: string;
  /** A milestone's name. */
  milestone?: string;
};

/**
 * The run a chat message is about (its `metadata.run`), or `null` when it names none (or a malformed one). Never throws.
 *
 * @experimental New API: it may change without a major version.
 */
export function readChatMessageRun(message: { readonly metadata?: unknown }): AgentChatMessageRun | null {
  const metadata = message.metadata;
  if (typeof metadata !== "object" || metadata === null) return null;
  const run = (metadata as { run?: unknown }).run;
  if (typeof run !== "object" || run === null) return null;
  const { runId, agentType, name, status, outcome, milestone } = run as Record<string, unknown>;
  if (typeof runId !== "string" || typeof agentType !== "string" || typeof name !== "string") return null;
  if (typeof status !== "string" || !isRunStatus(status)) return null;
  return {
    runId,
    agentType,
    name,
    status,
    ...(typeof outcome === "string" ? { outcome } : {}),
    ...(typeof milestone === "string" ? { milestone } : {}),
  };
}
