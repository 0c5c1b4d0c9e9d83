import { conversationReplay } from "@agent-tools/ag-ui";
import { AG_UI_DESCENDANT_TYPE, type AgUiReplayFrom, type AgUiSource } from "@agent-tools/ag-ui/internal";
import type { AgentToolRegistry } from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_EVENT_TYPE,
  type AgentChatEventFrame,
  type AgentToolEventFrame,
  type AgentToolUsage,
} from "@agent-tools/core-runs/protocol";
import type { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import type { ParentEventSockets } from "../parent/event-sockets.js";
import type { ParentChat } from "../parent/parent-chat.js";
import { turnRootId } from "../parent/parent-parts.js";
import { descendantsThrough } from "./descendant-feed.js";
import { DescendantFeeds } from "./descendant-feeds.js";
import { followTurn } from "./turn-follower.js";

/** The parts of a parent an AG-UI stream reads. */
export type AgUiParentParts = {
  registry: AgentToolRegistry;
  transport: DurableObjectChildTransport;
  chat: ParentChat;
  events: ParentEventSockets;
};

/**
 * What one AG-UI stream of a parent reads, gathered: the replay (the stored conversation, its runs' frames, the runs
 * below them through their children, the turn in flight's answer so far) and the live sources (every frame and
 * conversation event the parent's sockets get, the answer of each turn as it streams, the frames of runs below as
 * they come). Turn chunks and runs below that come during the replay are told in it, in place; after it, as they come.
 * @internal
 */
export class ParentAgUiSources {
  readonly #parts: AgUiParentParts;
  readonly #feeds: DescendantFeeds;
  #live: ((source: AgUiSource) => void) | null = null;
  #collected: AgUiSource[] | null = [];
  #turn: { turnId: string; stop: () => void } | null = null;
  #stopEvents: () => void = () => undefined;

  constructor(parts: AgUiParentParts, options: { follow: boolean }) {
    this.#parts = parts;
    this.#feeds = new DescendantFeeds({
      open: descendantsThrough(parts.transport),
      follow: options.follow,
      push: (item) => this.#emit({ type: AG_UI_DESCENDANT_TYPE, path: item.path, frame: item.frame }),
    });
  }

  /** Follow the parent live (returns how to stop): its frames and events, each turn's answer, the runs below. */
  follow(push: (source: AgUiSource) => void): () => void {
    this.#live = push;
    this.#stopEvents = this.#parts.events.listen((frame) => {
      this.#heard(frame);
      push(frame);
    });
    return () => this.close();
  }

  /** Send what a client holding `from` misses, in the order it happened. */
  async replay(push: (source: AgUiSource) => void, from: AgUiReplayFrom): Promise<void> {
    const { registry, chat } = this.#parts;
    const runs = await registry.listAgentToolRuns();
    for (const run of runs) this.#feeds.known(run);
    const frames = new Map<string, AgentToolEventFrame[]>();
    const cursors = from.cursors();
    await registry.replayAgentToolRuns(
      (frame) => {
        this.#feeds.seen(frame);
        const runId = frame.event.kind === "cleared" ? "" : frame.event.runId;
        frames.set(runId, [...(frames.get(runId) ?? []), frame]);
      },
      { cursors: Object.keys(cursors).length > 0 ? cursors : null },
    );
    const messages = await chat.engine.messages();
    const held = from.conversation();
    const lined = held.count > 0 && messages[held.count - 1]?.id === held.last;
    const turnId = chat.engine.activeTurnId;
    if (turnId !== null && this.#turn === null) this.#followTurn(turnId);
    // The runs below, as they were when their feeds opened: first, each waits for the tool call that started it.
    await this.#feeds.replayed();
    for (const cleared of frames.get("") ?? []) push(cleared);
    const sources = conversationReplay({
      messages,
      from: lined ? held.count : 0,
      runs,
      frames,
      activeTurn:
        turnId === null ? null : { turnId, rootId: turnRootId(turnId), ...usageOf(chat.engine.activeBudget?.total()) },
    });
    const collected = this.#collected ?? [];
    this.#collected = null;
    for (const source of [...collected.filter(isDescendant), ...sources, ...collected.filter(isTurnChunk)]) {
      push(source);
    }
    // Without a follower, nothing more is read.
    if (!this.#live) this.close();
  }

  /** Stop reading (the stream ended). */
  close(): void {
    this.#stopEvents();
    this.#turn?.stop();
    this.#turn = null;
    this.#feeds.close();
    this.#live = null;
  }

  /** A live frame or event: a turn that starts is followed, one that ends is not; a run that dispatched is read below. */
  #heard(frame: AgentToolEventFrame | AgentChatEventFrame): void {
    if (frame.type === AGENT_TOOL_EVENT_TYPE) {
      this.#feeds.seen(frame);
      return;
    }
    if (frame.event.kind === "turn-started") this.#followTurn(frame.event.turnId);
    if (frame.event.kind === "turn-ended" && this.#turn?.turnId === frame.event.turnId) {
      this.#turn.stop();
      this.#turn = null;
    }
  }

  #followTurn(turnId: string): void {
    this.#turn?.stop();
    this.#turn = { turnId, stop: followTurn(this.#parts.chat.engine, turnId, (chunk) => this.#emit(chunk)) };
  }

  /** A source of our own reading: kept for its place in the replay while it runs, else sent live. */
  #emit(source: AgUiSource): void {
    if (this.#collected) this.#collected.push(source);
    else this.#live?.(source);
  }
}

const isDescendant = (source: AgUiSource) => source.type === AG_UI_DESCENDANT_TYPE;
const isTurnChunk = (source: AgUiSource) =>
  source.type !== AG_UI_DESCENDANT_TYPE &&
  source.type !== AGENT_CHAT_EVENT_TYPE &&
  source.type !== AGENT_TOOL_EVENT_TYPE;

const usageOf = (usage: AgentToolUsage | undefined) => (usage ? { usage } : {});
