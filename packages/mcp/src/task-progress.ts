import { type AgentToolProgressSnapshot, nextProgressSnapshot } from "@agent-tools/core-runs";
import { type ChunkProgress, progressOfChunk } from "./progress-notification.js";

/**
 * What one task's client has been told of its run's progress (the snapshot it holds, the last milestone entry), and so
 * what a chunk of the run tells it anew.
 *
 * - A milestone is told once, by its entry in the run's log: an entry at a sequence told already is not told again.
 *   A progress snapshot that names the milestone again — the snapshot a tail of the child starts from, when the
 *   parent's tail attaches after the milestone or attaches again — does not tell it again.
 * - A progress report is folded into what the client holds by the protocol's rule (`nextProgressSnapshot`), and told
 *   only when it changes the bar the client holds: its `fraction`, `message` or `phase`, or the `data` it brings. A
 *   report older than what the client holds, or one that repeats its bar (a tail's starting snapshot, stamped later;
 *   or one that comes before the milestone's entry, which reaches a tail once written, and has no bar), is not told.
 */
export class TaskProgress {
  #lastSequence = 0;
  #held: AgentToolProgressSnapshot | undefined;

  /** What chunk `body` (at log `sequence`, a durable one) tells the client anew, or `null` for nothing new. */
  news(body: unknown, sequence: number | undefined): ChunkProgress | null {
    // A report without a time of its own is taken as the latest.
    const progress = progressOfChunk(body, this.#held?.at ?? 0);
    if (!progress) return null;
    if (progress.kind === "milestone") {
      if (sequence !== undefined && sequence <= this.#lastSequence) return null;
      if (sequence !== undefined) this.#lastSequence = sequence;
      this.#held = nextProgressSnapshot(this.#held, progress.snapshot, "milestone") ?? this.#held;
      return progress;
    }
    const next = nextProgressSnapshot(this.#held, progress.snapshot, "progress");
    if (!next || !changesBar(this.#held, next)) return null;
    this.#held = next;
    return progress;
  }
}

/**
 * Whether `next` shows the client a bar other than the one it holds (none before the first report; `data` only when
 * `next` brings some).
 */
function changesBar(held: AgentToolProgressSnapshot | undefined, next: AgentToolProgressSnapshot): boolean {
  return (
    next.fraction !== held?.fraction ||
    next.message !== held?.message ||
    next.phase !== held?.phase ||
    (next.data !== undefined && JSON.stringify(next.data) !== JSON.stringify(held?.data))
  );
}
