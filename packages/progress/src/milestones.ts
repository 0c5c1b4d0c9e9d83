import { AGENT_MILESTONE_PART, type JsonValue } from "@agent-tools/core-runs";
import { type AgentToolLogEntry, type AgentToolMilestone, readMilestoneChunk } from "@agent-tools/core-runs/protocol";
import type { ProgressUpdate } from "./progress-update.js";

/** What a durable `data-agent-milestone` chunk carries. `at` is the server time of the report. */
export type MilestoneChunkData<TData = unknown> = {
  milestone: string;
  message?: string;
  phase?: string;
  fraction?: number;
  data?: TData;
  at: number;
};

/** The durable milestone chunk: the seed's data part, stored in the run's log with its sequence. */
export type MilestoneChunk<TData = unknown> = {
  type: typeof AGENT_MILESTONE_PART;
  data: MilestoneChunkData<TData>;
};

/** A report that names a milestone. */
export type MilestoneUpdate<TData = unknown> = ProgressUpdate<TData> & { milestone: string };

/**
 * The `data-agent-milestone` chunk for a milestone report at server time `at`. It keeps `data` (the log is
 * durable by nature), and is not transient: it takes the next sequence in the run's log.
 */
export function milestoneChunk<TData>(update: MilestoneUpdate<TData>, at: number): MilestoneChunk<TData> {
  return {
    type: AGENT_MILESTONE_PART,
    data: {
      milestone: update.milestone,
      ...(update.message !== undefined ? { message: update.message } : {}),
      ...(update.phase !== undefined ? { phase: update.phase } : {}),
      ...(update.fraction !== undefined ? { fraction: update.fraction } : {}),
      ...(update.data !== undefined ? { data: update.data } : {}),
      at,
    },
  };
}

/**
 * The milestone as the child runner lists it in `inspect().milestones` (the runner adds `sequence` and `at`).
 */
export function milestoneListing(update: MilestoneUpdate<unknown>): Omit<AgentToolMilestone, "sequence" | "at"> {
  return {
    name: update.milestone,
    ...(update.message !== undefined ? { message: update.message } : {}),
    ...(update.phase !== undefined ? { phase: update.phase } : {}),
    ...(update.fraction !== undefined ? { fraction: update.fraction } : {}),
    // Stored and sent as JSON: what a reader gets is the data's JSON.
    ...(update.data !== undefined ? { data: update.data as JsonValue } : {}),
  };
}

/**
 * The milestones in log entries (e.g. a `readLog` page or replayed chunk frames), in the entries' order, one per
 * sequence: an entry whose sequence was already seen is skipped, so a replay that overlaps a live stream lists
 * each milestone once. Other chunks are ignored. Never throws.
 */
export function readMilestones(entries: Iterable<AgentToolLogEntry>): AgentToolMilestone[] {
  const seen = new Set<number>();
  const milestones: AgentToolMilestone[] = [];
  for (const entry of entries) {
    if (seen.has(entry.sequence)) continue;
    const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
    if (milestone === null) continue;
    seen.add(entry.sequence);
    milestones.push(milestone);
  }
  return milestones;
}
