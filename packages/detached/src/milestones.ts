import type { AgentToolRunInfo, ChatHost } from "@agent-tools/core-runs";
import { type RunRecord, toRunInfo } from "@agent-tools/core-runs/internal";
import type { AgentToolMilestone } from "@agent-tools/core-runs/protocol";
import {
  type DetachedExtension,
  type DetachedMilestoneMode,
  type DetachedRunState,
  readDetachedState,
} from "./detached-state.js";
import type { DetachedEventEmitter } from "./events.js";
import { detachedRunName, messageRun } from "./message-run.js";
import { DEFAULT_DETACHED_SOURCE, isLastMessage } from "./notify.js";

/**
 * `onMilestones`: the milestone names to tell the chat about, before the run ends. `narrate` (default) appends a
 * synthetic assistant status line and starts no model turn; `react` appends a user-role message the model answers.
 */
export type DetachedMilestonesOption =
  | readonly string[]
  | { names: readonly string[]; mode?: DetachedMilestoneMode; source?: string };

/** The text of a milestone message; an empty string sends nothing. */
export type FormatDetachedMilestone = (run: AgentToolRunInfo, milestone: AgentToolMilestone) => string;

/** Default milestone text: which run reached which milestone, with its message if any. */
export const defaultFormatDetachedMilestone: FormatDetachedMilestone = (run, milestone) => {
  const name = detachedRunName(run);
  const detail = milestone.message ? `: ${milestone.message}` : "";
  return `${name} (${run.runId}) reached "${milestone.name}"${detail}.`;
};

/** The id of the message for milestone `name` of `runId`: the live and the cold path merge on it. */
export function milestoneMessageId(runId: string, name: string): string {
  return `${DEFAULT_DETACHED_SOURCE}:${runId}:milestone:${name}`;
}

/** The stored form of `onMilestones`, or `null` when there is nothing to watch for. */
export function resolveMilestones(option: DetachedMilestonesOption | undefined): DetachedRunState["milestones"] | null {
  if (option === undefined) return null;
  const names = Array.isArray(option) ? option : (option as { names: readonly string[] }).names;
  const unique = [...new Set(names.filter((name): name is string => typeof name === "string" && name !== ""))];
  if (unique.length === 0) return null;
  const settings = Array.isArray(option) ? {} : (option as { mode?: DetachedMilestoneMode; source?: string });
  return { names: unique, mode: settings.mode ?? "narrate", source: settings.source ?? DEFAULT_DETACHED_SOURCE };
}

/** The named milestones of `milestones` this run still has to tell, first occurrence of each, in order. */
function milestonesToTell(state: DetachedRunState, milestones: readonly AgentToolMilestone[]): AgentToolMilestone[] {
  const settings = state.milestones;
  if (!settings) return [];
  const told = new Set(state.milestonesTold ?? []);
  const due: AgentToolMilestone[] = [];
  for (const milestone of [...milestones].sort((a, b) => a.sequence - b.sequence)) {
    if (!settings.names.includes(milestone.name) || told.has(milestone.name)) continue;
    told.add(milestone.name);
    due.push(milestone);
  }
  return due;
}

/** True when some named milestone has not been told yet. */
export function hasUntoldMilestones(state: DetachedRunState): boolean {
  const settings = state.milestones;
  if (!settings) return false;
  const told = state.milestonesTold ?? [];
  return settings.names.some((name) => !told.includes(name));
}

export type MilestoneTellerOptions = {
  extension: DetachedExtension;
  chatHost: ChatHost | undefined;
  emit: DetachedEventEmitter;
  format: FormatDetachedMilestone;
};

/**
 * Tells the chat about named milestones, at most once per `(runId, name)`: the ledger (`milestonesTold`) is
 * written after the message is in the chat, and the message id is deterministic, so a second attempt after a
 * crash merges with the first and starts no second turn. Callers hold the run's lock.
 */
export class MilestoneTeller {
  readonly #options: MilestoneTellerOptions;

  constructor(options: MilestoneTellerOptions) {
    this.#options = options;
  }

  /** Tell what is due among `milestones`; resolves how many were newly settled. */
  async tell(record: RunRecord, milestones: readonly AgentToolMilestone[]): Promise<number> {
    const { extension, chatHost, emit, format } = this.#options;
    let current = record;
    const state = readDetachedState(record);
    if (!state?.milestones || !chatHost) return 0;
    const { mode, source } = state.milestones;
    let settled = 0;
    for (const milestone of milestonesToTell(state, milestones)) {
      const text = format(toRunInfo(current), milestone);
      if (text !== "") {
        await chatHost.runBetweenTurns(async () => {
          const id = milestoneMessageId(current.runId, milestone.name);
          const role = mode === "react" ? "user" : "assistant";
          const run = messageRun(toRunInfo(current), {
            status: "running",
            outcome: milestone.message,
            milestone: milestone.name,
          });
          const appended = await chatHost.appendMessage({ id, role, text, source, run });
          // As for completions: a repeat reacts only if the first stopped before the model answered.
          if (mode === "react" && (appended || (await isLastMessage(chatHost, id)))) await chatHost.startTurn();
        });
      }
      const updated = await extension.updateState(current.runId, (latest) =>
        (latest.milestonesTold ?? []).includes(milestone.name)
          ? null
          : { ...latest, milestonesTold: [...(latest.milestonesTold ?? []), milestone.name] },
      );
      if (!updated) return settled;
      current = updated.record;
      settled += 1;
      emit({
        type: "agent_tool:detached:milestone",
        runId: current.runId,
        agentType: current.agentType,
        name: milestone.name,
        mode,
        told: text !== "",
        at: extension.clock.now(),
      });
    }
    return settled;
  }
}
