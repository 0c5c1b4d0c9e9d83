import type { AgentToolProgressSnapshot, JsonValue } from "@agent-tools/core-runs";
import { AGENT_PROGRESS_PART } from "@agent-tools/core-runs/protocol";
import type { ProgressUpdate } from "./progress-update.js";

/** What an ephemeral `data-agent-progress` chunk carries. `at` is the server time of the report. */
export type ProgressChunkData<TData = unknown> = {
  fraction?: number;
  message?: string;
  phase?: string;
  data?: TData;
  at: number;
};

/** The ephemeral progress chunk: the seed's transient data part, so it never enters the durable log. */
export type ProgressChunk<TData = unknown> = {
  type: typeof AGENT_PROGRESS_PART;
  data: ProgressChunkData<TData>;
  transient: true;
};

/** The fields every progress value shares (absent stays absent). */
function sharedFields(update: ProgressUpdate<unknown>): Omit<ProgressChunkData, "at" | "data"> {
  return {
    ...(update.fraction !== undefined ? { fraction: update.fraction } : {}),
    ...(update.message !== undefined ? { message: update.message } : {}),
    ...(update.phase !== undefined ? { phase: update.phase } : {}),
  };
}

/**
 * The `data-agent-progress` chunk for an ephemeral report at server time `at`: always with `data` (live frames
 * carry it), never with `milestone`, always `transient: true`.
 */
export function progressChunk<TData>(update: ProgressUpdate<TData>, at: number): ProgressChunk<TData> {
  return {
    type: AGENT_PROGRESS_PART,
    data: { ...sharedFields(update), ...(update.data !== undefined ? { data: update.data } : {}), at },
    transient: true,
  };
}

/**
 * The snapshot kept on the child's run row for an ephemeral report: `data` only when `persist` is true, so that
 * large or private data does not outlive the live frames unless asked for.
 */
export function progressSnapshot(
  update: ProgressUpdate<unknown>,
  at: number,
  options: { persist?: boolean } = {},
): AgentToolProgressSnapshot {
  return {
    ...sharedFields(update),
    // Stored and sent as JSON: what a reader gets is the data's JSON.
    ...(options.persist === true && update.data !== undefined ? { data: update.data as JsonValue } : {}),
    at,
  };
}
