import { AgentToolsError } from "@agent-tools/core-runs";

/**
 * One progress report of a child run (SPEC §7). Every field is optional; a field left out is absent from the
 * frame, not `undefined`.
 */
export type ProgressUpdate<TData = unknown> = {
  /** How far the work is, from 0 to 1 (inclusive). `1` or more marks it done and is sent at once. */
  fraction?: number;
  /** A short human-readable line ("Imported batch 3 of 5"). */
  message?: string;
  /** The current stage ("schema", "rows", …). */
  phase?: string;
  /** Names a durable milestone: never coalesced, appended to the run's log with the next sequence. */
  milestone?: string;
  /** Free JSON data for clients; live frames always carry it. */
  data?: TData;
};

/** How a report is kept. */
export type ReportProgressOptions = {
  /**
   * Keep `data` in the snapshot persisted on the child's run row (default false: the row keeps the other fields
   * only). Live frames carry `data` either way, and a milestone keeps its `data` in the durable log either way.
   */
  persist?: boolean;
};

const invalid = (message: string) => new AgentToolsError("INVALID_ARGUMENT", `reportProgress: ${message}`);

/**
 * Check a report before anything is sent. Throws an `AgentToolsError` with code `INVALID_ARGUMENT` when
 * `update` is not an object, `fraction` is not a finite number from 0 to 1, `message` or `phase` is not a string,
 * `milestone` is not a non-empty string, `data` cannot be encoded as JSON, or `persist` is not a boolean.
 * A field set to `undefined` counts as absent.
 */
export function validateProgressUpdate(update: unknown, options?: unknown): asserts update is ProgressUpdate {
  if (typeof update !== "object" || update === null || Array.isArray(update)) {
    throw invalid(`the update must be an object, got ${describe(update)}`);
  }
  const fields = update as Record<string, unknown>;
  const fraction = fields["fraction"];
  if (fraction !== undefined && !(typeof fraction === "number" && Number.isFinite(fraction))) {
    throw invalid(`fraction must be a finite number from 0 to 1, got ${describe(fraction)}`);
  }
  if (typeof fraction === "number" && (fraction < 0 || fraction > 1)) {
    throw invalid(`fraction must be from 0 to 1, got ${fraction}`);
  }
  for (const name of ["message", "phase"] as const) {
    const value = fields[name];
    if (value !== undefined && typeof value !== "string") {
      throw invalid(`${name} must be a string, got ${describe(value)}`);
    }
  }
  const milestone = fields["milestone"];
  if (milestone !== undefined && (typeof milestone !== "string" || milestone.trim() === "")) {
    throw invalid(`milestone must be a non-empty string, got ${describe(milestone)}`);
  }
  if (fields["data"] !== undefined) {
    try {
      JSON.stringify(fields["data"]);
    } catch (error) {
      throw new AgentToolsError("INVALID_ARGUMENT", "reportProgress: data must be encodable as JSON", {
        cause: error,
      });
    }
  }
  if (options !== undefined && options !== null) {
    const persist = (options as { persist?: unknown }).persist;
    if (persist !== undefined && typeof persist !== "boolean") {
      throw invalid(`options.persist must be a boolean, got ${describe(persist)}`);
    }
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
