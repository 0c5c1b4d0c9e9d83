import type { UIMessageChunk } from "ai";
import type { JsonValue } from "./json-value.js";
import type { AgentToolMilestone, AgentToolProgressSnapshot } from "./run-types.js";
import { isObject } from "./unknown-values.js";

/** The seed's transient data part for ephemeral progress (no sequence). */
export const AGENT_PROGRESS_PART = "data-agent-progress";
/** The seed's data part for durable milestones (carries its log sequence). */
export const AGENT_MILESTONE_PART = "data-agent-milestone";

function snapshotFields(data: Record<string, unknown>): Omit<AgentToolProgressSnapshot, "at"> {
  const fraction = data["fraction"];
  const message = data["message"];
  const phase = data["phase"];
  const milestone = data["milestone"];
  return {
    ...(typeof fraction === "number" && Number.isFinite(fraction) ? { fraction } : {}),
    ...(typeof message === "string" ? { message } : {}),
    ...(typeof phase === "string" ? { phase } : {}),
    ...(typeof milestone === "string" ? { milestone } : {}),
    // A chunk's data travels and is stored as JSON.
    ...("data" in data ? { data: data["data"] as JsonValue } : {}),
  };
}

/**
 * The progress snapshot a `data-agent-progress` or `data-agent-milestone` chunk carries, or `null` for any
 * other chunk. Never throws. `at` falls back to `fallbackAt` when the chunk has no numeric `at`.
 */
export function readProgressChunk(
  body: UIMessageChunk | unknown,
  fallbackAt: number,
): AgentToolProgressSnapshot | null {
  if (!isObject(body)) return null;
  const type = body["type"];
  if (type !== AGENT_PROGRESS_PART && type !== AGENT_MILESTONE_PART) return null;
  const data = isObject(body["data"]) ? body["data"] : {};
  const at = typeof data["at"] === "number" ? data["at"] : fallbackAt;
  const snapshot: AgentToolProgressSnapshot = { ...snapshotFields(data), at };
  if (type === AGENT_MILESTONE_PART && snapshot.milestone === undefined && typeof data["name"] === "string") {
    snapshot.milestone = data["name"];
  }
  return snapshot;
}

/**
 * A run's latest progress after one more report: the one rule the child's row, the parent and every client apply, so
 * a client that watched a run live and one that replays it later hold the same snapshot. Ephemeral progress
 * (`"progress"`: a `data-agent-progress` chunk, also the snapshot a replay or a tail starts from) replaces the
 * snapshot. A `"milestone"` moves it on, keeping what it does not bring itself (the bar's `fraction`, `message`,
 * `phase`, and `data`: a milestone's own data stays in the milestone). A report older than `previous` (by `at`) changes
 * nothing: `null`.
 */
export function nextProgressSnapshot(
  previous: AgentToolProgressSnapshot | null | undefined,
  report: AgentToolProgressSnapshot,
  kind: "progress" | "milestone",
): AgentToolProgressSnapshot | null {
  if (previous && report.at < previous.at) return null;
  if (kind === "progress") return report;
  const { data: _ownData, ...fields } = report;
  return { ...previous, ...fields };
}

/** The milestone a `data-agent-milestone` chunk carries at `sequence`, or `null`. Never throws. */
export function readMilestoneChunk(body: unknown, sequence: number, fallbackAt: number): AgentToolMilestone | null {
  const snapshot = readProgressChunk(body, fallbackAt);
  if (!snapshot || !isObject(body) || body["type"] !== AGENT_MILESTONE_PART || snapshot.milestone === undefined) {
    return null;
  }
  const { milestone, ...rest } = snapshot;
  return { ...rest, name: milestone, sequence };
}
