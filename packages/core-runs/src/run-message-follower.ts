import type { UIMessage, UIMessageChunk } from "ai";
import { assembleMessage } from "./assemble-message.js";
import {
  AGENT_MILESTONE_PART,
  type AgentToolApproval,
  type AgentToolEventFrame,
  type AgentToolProgressSnapshot,
  mergeApproval,
  type RunStatus,
  readApprovalChunk,
  readProgressChunk,
  readStepResetChunk,
  voidedRanges,
} from "./protocol/index.js";

const TERMINAL_STATUS = {
  finished: "completed",
  error: "error",
  aborted: "aborted",
  interrupted: "interrupted",
} as const satisfies Record<string, RunStatus>;

/** Our own protocol's data parts: progress and milestones are reported on their own, not as message parts. */
const isProtocolPart = (chunk: UIMessageChunk) => chunk.type.startsWith("data-agent-");

/** What a follower knows of its run at one moment. */
export type FollowedRun = {
  status: RunStatus;
  /** The child's answer so far, assembled by the AI SDK from its durable chunks in sequence order. */
  message: UIMessage | null;
  /** The newest progress report (ephemeral progress or a milestone). */
  progress: AgentToolProgressSnapshot | null;
  /**
   * The tool calls that needed approval in the run's tree (its own and its descendants'), each in its latest state,
   * in the order they were asked: a `pending` one waits for an answer (`registry.answerApproval`).
   */
  approvals: AgentToolApproval[];
};

/**
 * Follows one run's frames, as a client would: durable chunks are kept once each by sequence and used only while
 * gap-free from 1 (a replayed frame and its live twin count once), lifecycle frames by revision. A step reset drops
 * the cut step's chunks it holds and stands for the sequences it voids (a replay leaves them out).
 * @internal
 */
export class RunMessageFollower {
  readonly #runId: string;
  /** Kept chunks by sequence, held or ahead of a gap. */
  readonly #entries = new Map<number, UIMessageChunk>();
  /** Sequences a step reset voided: they count as held. */
  readonly #voided = new Set<number>();
  /** Every sequence from 1 to here is held or voided. */
  #contiguous = 0;
  #status: RunStatus = "starting";
  #revision = 0;
  #progress: AgentToolProgressSnapshot | null = null;
  /** By approvalId, the state by the protocol's one rule (`mergeApproval`). */
  readonly #approvals = new Map<string, AgentToolApproval>();
  /** Bumped on every change a reader could see. */
  #version = 0;
  #wake: (() => void) | null = null;
  #assembled: { version: number; message: Promise<UIMessage | null> } | null = null;

  constructor(runId: string) {
    this.#runId = runId;
  }

  /** Take one frame of the run (frames of other runs are ignored). Never throws. */
  push(frame: AgentToolEventFrame): void {
    const { event } = frame;
    if (event.kind === "cleared") return;
    if (event.runId !== this.#runId) return;
    if (event.kind === "chunk") {
      const progress = readProgressChunk(event.body, 0);
      if (progress && (this.#progress === null || progress.at >= this.#progress.at)) {
        this.#progress = progress;
        this.#changed();
      }
      const approval = readApprovalChunk(event.body);
      const known = approval ? this.#approvals.get(approval.approvalId) : undefined;
      const merged = approval ? mergeApproval(known, approval) : known;
      if (approval && merged !== known) {
        this.#approvals.set(approval.approvalId, merged as AgentToolApproval);
        this.#changed();
      }
      const sequence = frame.sequence;
      if (sequence === undefined) return;
      if (sequence <= this.#contiguous || this.#entries.has(sequence) || this.#voided.has(sequence)) return;
      const reset = readStepResetChunk(event.body);
      if (reset) {
        for (const [from, until] of voidedRanges(reset, sequence)) {
          for (let voided = from; voided < until; voided += 1) {
            if (this.#entries.get(voided)?.type === AGENT_MILESTONE_PART) continue;
            this.#entries.delete(voided);
            this.#voided.add(voided);
          }
        }
      }
      this.#entries.set(sequence, event.body);
      while (this.#entries.has(this.#contiguous + 1) || this.#voided.has(this.#contiguous + 1)) this.#contiguous += 1;
      if (this.#status === "starting") this.#status = "running";
      this.#changed();
      return;
    }
    const revision = frame.revision ?? 0;
    if (revision !== 0 && revision <= this.#revision) return;
    this.#revision = Math.max(this.#revision, revision);
    this.#status = event.kind === "started" ? "running" : TERMINAL_STATUS[event.kind];
    this.#changed();
  }

  /** The number of changes taken so far: pass it to `changedSince`. */
  get version(): number {
    return this.#version;
  }

  /** Resolves once something changed after `version` (at once when it already has). */
  changedSince(version: number): Promise<void> {
    if (this.#version > version) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.#wake;
      this.#wake = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** The run as it stands: one assembly per version however often it is asked. */
  async read(): Promise<FollowedRun> {
    const version = this.#version;
    if (this.#assembled?.version !== version) {
      const chunks: UIMessageChunk[] = [];
      for (let sequence = 1; sequence <= this.#contiguous; sequence += 1) {
        const chunk = this.#entries.get(sequence);
        if (chunk !== undefined && !isProtocolPart(chunk)) chunks.push(chunk);
      }
      this.#assembled = { version, message: assembleMessage(chunks, `agent-tool-${this.#runId}-output`) };
    }
    const message = await this.#assembled.message;
    return { status: this.#status, message, progress: this.#progress, approvals: [...this.#approvals.values()] };
  }

  #changed(): void {
    this.#version += 1;
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
