import { type AgentToolApproval, readApprovalChunk } from "@agent-tools/core-runs";
import type { AgentToolLogEntry } from "@agent-tools/core-runs/protocol";

/**
 * The approvals of one run's tree, folded from its log: each approval's latest state by id (asked `pending`, then
 * answered), the state at the highest sequence winning, so that the log read late and frames seen live agree.
 */
export class ApprovalFold {
  readonly #latest = new Map<string, { approval: AgentToolApproval; sequence: number }>();
  #lastSequence = 0;

  /** The highest sequence of the log folded so far (read it on from there). */
  get lastSequence(): number {
    return this.#lastSequence;
  }

  /** Fold more of the log, in order (entries at or below `lastSequence` are skipped). */
  add(entries: readonly AgentToolLogEntry[]): void {
    for (const entry of entries) {
      if (entry.sequence <= this.#lastSequence) continue;
      this.#lastSequence = entry.sequence;
      const approval = readApprovalChunk(entry.body);
      if (approval) this.see(approval, entry.sequence);
    }
  }

  /** Fold one approval seen at `sequence` (a live frame's; none: older than anything the log holds). */
  see(approval: AgentToolApproval, sequence = 0): void {
    const known = this.#latest.get(approval.approvalId);
    if (known && known.sequence > sequence) return;
    this.#latest.set(approval.approvalId, { approval, sequence });
  }

  /** The approvals still waiting for an answer, oldest first. */
  pending(): AgentToolApproval[] {
    return [...this.#latest.values()]
      .map(({ approval }) => approval)
      .filter((approval) => approval.status === "pending")
      .sort((a, b) => a.at - b.at);
  }
}
