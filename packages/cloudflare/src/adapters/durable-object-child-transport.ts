import {
  AgentToolsError,
  type ChildStartOptions,
  type ChildTransport,
  type StartTailOptions,
  type TailOptions,
} from "@agent-tools/core-runs";
import type { ChildRef } from "@agent-tools/core-runs/internal";
import type {
  AgentToolApprovalAnswer,
  AgentToolBudgetExhaustion,
  AgentToolRunInspection,
  AgentToolTailItem,
} from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import { fromNdjsonTail } from "./ndjson-tail.js";

/** The RPC surface a child Durable Object offers its parent (see `AgentToolChild`). */
export interface AgentToolChildRpc {
  agentToolStart(runId: string, input: unknown, options?: ChildStartOptions): Promise<AgentToolRunInspection>;
  agentToolInspect(runId: string): Promise<AgentToolRunInspection | null>;
  agentToolTail(runId: string, afterSequence: number): Promise<ReadableStream<Uint8Array>>;
  /**
   * `agentToolStart`, then `agentToolTail` from the run's first entry, in one call (the parent's one round trip). A
   * parent that reads bytes says so (`answer.bytes`): a run that has ended by the answer then comes whole as one
   * `Uint8Array` of the same NDJSON lines (one RPC message, no stream between the objects); without it, a stream.
   */
  agentToolStartTail(
    runId: string,
    input: unknown,
    options?: ChildStartOptions,
    answer?: StartTailAnswer,
  ): Promise<ReadableStream<Uint8Array> | Uint8Array>;
  agentToolCancel(runId: string, reason?: string): Promise<void>;
  /** The budget of the run's tree ran out above it (optional: a child without it runs on within its own budget). */
  agentToolWrapUp?(runId: string, reason: AgentToolBudgetExhaustion): Promise<void>;
  /**
   * Answer an approval asked in the run's tree (optional: a child without it has no tools that need approval).
   * Resolves whether it reached the run that asked.
   */
  agentToolAnswerApproval?(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean>;
  agentToolDestroy(runId: string): Promise<void>;
  agentToolMessages(runId: string): Promise<UIMessage[]>;
  /**
   * What the run dispatched, at every depth below it, as NDJSON items (a parent's AG-UI stream reads it): the replay,
   * then (`follow`) live frames until the run and everything below it are over (optional: a child without it shows
   * nothing below it).
   */
  agentToolDescendants?(runId: string, follow: boolean): Promise<ReadableStream<Uint8Array>>;
}

/** How the parent reads `agentToolStartTail`'s answer (a child from before it ignores it and answers a stream). */
export type StartTailAnswer = {
  /** The parent reads an ended run's tail as one `Uint8Array`. */
  bytes?: boolean;
};

/** This transport reads `startTail`'s answer as bytes or a stream, whichever the child sends. */
const READS_BYTES: StartTailAnswer = { bytes: true };

/** What a child offers for direct chat, outside any tool call (`AgentToolChild` does). */
export interface AgentToolChildChatRpc {
  /** One message to the named conversation; its answer as NDJSON `UIMessageChunk`s. */
  agentToolChat(conversation: string, message: UIMessage): Promise<ReadableStream<Uint8Array>>;
  /** The named conversation so far. */
  agentToolChatMessages(conversation: string): Promise<UIMessage[]>;
  /**
   * One message into the conversation of finished run `runId` (its messages, then what was said since): the answer
   * as NDJSON `UIMessageChunk`s once the message's turn came, or why not (`unknown-run`; `running` while the run has
   * not ended; `queue-full` when `options.maxQueuedSends` of its messages wait already; `dropped` when it was
   * withdrawn before its turn).
   */
  agentToolRunChat(
    runId: string,
    message: UIMessage,
    options?: AgentToolRunChatOptions,
  ): Promise<AgentToolRunChatResult>;
  /**
   * Withdraw the message sent with `requestId` while it waits for its turn (its sender went away): it is dropped,
   * never run, nothing of it stored. Resolves false when no such message waits (its turn came already).
   */
  agentToolRunChatWithdraw?(requestId: string): Promise<boolean>;
  /** Run `runId`'s conversation: its input and answer, then what was said since. */
  agentToolRunChatMessages(runId: string): Promise<UIMessage[]>;
}

/** How a message into a run's conversation waits for its turn. */
export type AgentToolRunChatOptions = {
  /** Refuse the message (`queue-full`) when this many messages of the conversation wait for their turn already. */
  maxQueuedSends?: number;
  /** Names the message while it waits, so that `agentToolRunChatWithdraw(requestId)` can drop it. */
  requestId?: string;
};

/** What `agentToolRunChat` answers. */
export type AgentToolRunChatResult =
  | { ok: true; answer: ReadableStream<Uint8Array> }
  | { ok: false; refusal: "unknown-run" | "running" | "dropped" }
  | { ok: false; refusal: "queue-full"; error: string };

/** A child object's stub, as the transport gives it. */
export type AgentToolChildStub = AgentToolChildRpc &
  Partial<AgentToolChildChatRpc> & { fetch(request: Request): Promise<Response> };

/** A child namespace as the transport needs it: a name → stub lookup. */
export type ChildNamespace = {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): unknown;
};

/** The Durable Object name of a run's child: scoped to its parent, so two parents never share a child. */
export function childObjectName(parentId: string, ref: ChildRef): string {
  return `${parentId}/${ref.agentType}/${ref.runId}`;
}

/**
 * `ChildTransport` over Durable Object RPC: each run's child is its own object, named from
 * (parent, agentType, runId). The tail crosses as an NDJSON byte stream; cancelling it (or aborting the signal)
 * cancels the RPC stream, never the run. An unknown agentType rejects (the registry records `error`).
 */
export class DurableObjectChildTransport implements ChildTransport {
  readonly #parentId: string;
  readonly #namespaces: Readonly<Record<string, ChildNamespace>>;

  constructor(options: { parentId: string; namespaces: Readonly<Record<string, ChildNamespace>> }) {
    this.#parentId = options.parentId;
    this.#namespaces = options.namespaces;
  }

  /** The stub of a run's child object. */
  stub(ref: ChildRef): AgentToolChildStub {
    const namespace = this.#namespaces[ref.agentType];
    if (!namespace) {
      throw new AgentToolsError(
        "UNKNOWN_AGENT_TYPE",
        `No Durable Object binding for child agent type "${ref.agentType}"`,
      );
    }
    return namespace.get(namespace.idFromName(childObjectName(this.#parentId, ref))) as AgentToolChildStub;
  }

  start(ref: ChildRef, input: unknown, options: ChildStartOptions = {}): Promise<AgentToolRunInspection> {
    return this.stub(ref).agentToolStart(ref.runId, input, options);
  }

  inspect(ref: ChildRef): Promise<AgentToolRunInspection | null> {
    return this.stub(ref).agentToolInspect(ref.runId);
  }

  tail(ref: ChildRef, options: TailOptions): ReadableStream<AgentToolTailItem> {
    const bytes = this.stub(ref)
      .agentToolTail(ref.runId, options.afterSequence)
      .then((stream) => {
        options.onOpen?.();
        return stream;
      });
    return fromNdjsonTail(bytes, options.signal);
  }

  /** One RPC: the child starts the run and answers with its tail (resolves once the child recorded the run). */
  async startTail(ref: ChildRef, input: unknown, options: ChildStartOptions, tail: StartTailOptions) {
    const answer = await this.stub(ref).agentToolStartTail(ref.runId, input, options, READS_BYTES);
    return fromNdjsonTail(Promise.resolve(answer), tail.signal);
  }

  cancel(ref: ChildRef, reason?: string): Promise<void> {
    return this.stub(ref).agentToolCancel(ref.runId, reason);
  }

  async wrapUp(ref: ChildRef, reason: AgentToolBudgetExhaustion): Promise<void> {
    const stub = this.stub(ref);
    if (typeof stub.agentToolWrapUp === "function") await stub.agentToolWrapUp(ref.runId, reason);
  }

  async answerApproval(ref: ChildRef, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    const stub = this.stub(ref);
    if (typeof stub.agentToolAnswerApproval !== "function") return false;
    return stub.agentToolAnswerApproval(ref.runId, approvalId, answer);
  }

  destroy(ref: ChildRef): Promise<void> {
    return this.stub(ref).agentToolDestroy(ref.runId);
  }
}
