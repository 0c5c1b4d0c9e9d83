import type { UIMessage, UIMessageChunk } from "ai";
import {
  AGENT_MILESTONE_PART,
  type AgentToolApproval,
  type AgentToolEventFrame,
  type AgentToolFrameCursor,
  type AgentToolProgressSnapshot,
  acceptAgentToolFrame,
  mergeApproval,
  NO_FRAMES_ACCEPTED,
  outputMessageId,
  type RunStatus,
  readApprovalChunk,
  readProgressChunk,
} from "../protocol/index.js";
import { IncrementalMessage } from "./incremental-message.js";

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
 * Follows one run's frames, as a client would, by the protocol's rule (`acceptAgentToolFrame`): durable chunks are
 * kept once each by sequence and used only while gap-free from 1 (a replayed frame and its live twin count once),
 * lifecycle frames by revision. A step reset drops the cut step's chunks it holds and stands for the sequences it voids
 * (a replay leaves them out).
 * @internal
 */
export class RunMessageFollower {
  readonly #runId: string;
  /** Kept chunks by sequence, held or ahead of a gap. */
  readonly #entries = new Map<number, UIMessageChunk>();
  /** What the run's frames accepted so far: sequences, voided ranges, revision. */
  #cursor: AgentToolFrameCursor = NO_FRAMES_ACCEPTED;
  #status: RunStatus = "starting";
  #progress: AgentToolProgressSnapshot | null = null;
  /** By approvalId, the state by the protocol's one rule (`mergeApproval`). */
  readonly #approvals = new Map<string, AgentToolApproval>();
  /** Bumped on every change a reader could see. */
  #version = 0;
  #wake: (() => void) | null = null;
  /** The child's message, built from the kept chunks in sequence order up to `#applied`, each chunk applied once. */
  #message: IncrementalMessage;
  #applied = 0;

  constructor(runId: string) {
    this.#runId = runId;
    this.#message = new IncrementalMessage(outputMessageId(runId));
  }

  /** Take one frame of the run (frames of other runs are ignored). Never throws. */
  push(frame: AgentToolEventFrame): void {
    const { event } = frame;
    if (event.kind === "cleared") return;
    if (event.runId !== this.#runId) return;
    const { accepted, cursor, voids } = acceptAgentToolFrame(this.#cursor, frame);
    if (!accepted) return;
    this.#cursor = cursor;
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
      for (const [from, until] of voids) {
        for (let voided = from; voided < until; voided += 1) {
          if (this.#entries.get(voided)?.type !== AGENT_MILESTONE_PART) this.#entries.delete(voided);
        }
        // A chunk the message holds is voided (a step reset): the message is built again from the kept ones.
        if (from <= this.#applied) this.#restartMessage();
      }
      this.#entries.set(sequence, event.body);
      this.#applyContiguous();
      if (this.#status === "starting") this.#status = "running";
      this.#changed();
      return;
    }
    if (cursor.status !== null) this.#status = cursor.status;
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

  /** The run as it stands (its message as the chunks taken so far make it). */
  async read(): Promise<FollowedRun> {
    const status = this.#status;
    const progress = this.#progress;
    const approvals = [...this.#approvals.values()];
    const message = await this.#message.read();
    return { status, message, progress, approvals };
  }

  /** Let go of the message's assembly (its stream): the message stays as it is; take no more chunks into it. */
  close(): void {
    this.#message.close();
  }

  /** Hand the message the kept chunks that are now gap-free, in sequence order, each once. */
  #applyContiguous(): void {
    for (let sequence = this.#applied + 1; sequence <= this.#cursor.contiguous; sequence += 1) {
      const chunk = this.#entries.get(sequence);
      if (chunk !== undefined && !isProtocolPart(chunk)) this.#message.append(chunk);
      this.#applied = sequence;
    }
  }

  #restartMessage(): void {
    this.#message.close();
    this.#message = new IncrementalMessage(outputMessageId(this.#runId));
    this.#applied = 0;
  }

  #changed(): void {
    this.#version += 1;
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
