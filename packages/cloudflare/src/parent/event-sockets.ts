import { RequestBudget } from "@agent-tools/chat";
import { type AgentToolRegistry, AgentToolsError, type Clock } from "@agent-tools/core-runs";
import type { ReplayOptions } from "@agent-tools/core-runs/internal";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_BATCH_PARAM,
  AGENT_TOOL_CURSORS_PARAM,
  AGENT_TOOL_PAGE_PARAM,
  AGENT_TOOL_PAGE_TYPE,
  type AgentChatEvent,
  type AgentChatEventFrame,
  type AgentToolEventFrame,
  type AgentToolPageFrame,
  asksForAgentToolBatches,
  encodeAgentChatEventFrame,
  encodeAgentToolFrame,
  encodeAgentToolPosition,
  packAgentToolBatches,
  parseAgentToolCursors,
  parseAgentToolPageLimit,
  parseAgentToolPageRequest,
} from "@agent-tools/core-runs/protocol";
import { webSocketUpgrade } from "../websocket-upgrade.js";

const EVENTS_TAG = "agent-tools:events";
/**
 * The tag of an event socket that asked for batches (`agentToolBatch=1`, SPEC §6). A tag, not memory: it stays with
 * the socket while the object hibernates or is evicted, so a socket's batches go on after the object wakes.
 */
const BATCHES_TAG = "agent-tools:events:batches-1";

/** Default `pageRequestBurst`: page requests a socket may make at once. */
export const DEFAULT_PAGE_REQUEST_BURST = 10;
/** Default `pageRequestRefillMs`: past its burst, a socket may make one page request this often (1 s). */
export const DEFAULT_PAGE_REQUEST_REFILL_MS = 1_000;
/** Default `maxPageBytes`: what one request for a page of older runs may make the parent send (1 MB). */
export const DEFAULT_MAX_PAGE_BYTES = 1_000_000;
/** The longest message read as a page request (a page request is a few hundred characters); longer ones are ignored. */
const MAX_PAGE_REQUEST_LENGTH = 16_384;

/** How a parent bounds what its event sockets' page requests (SPEC §6, paged replay) cost it. */
export type ParentEventSocketOptions = {
  /**
   * Page requests a socket may make at once (default 10), then one per `pageRequestRefillMs` (default 1 000 ms): a
   * request past that is answered with a page frame that replays nothing and says when to ask again (`retryAfterMs`).
   */
  pageRequestBurst?: number;
  pageRequestRefillMs?: number;
  /**
   * What one request for a page of older runs may make the parent send, in bytes (default 1 MB): the page ends before
   * the run that would go past it, and says the older runs start there (a page holds at least one run, whole).
   */
  maxPageBytes?: number;
};

/**
 * The parent's event sockets (server → client only): a client connects with its cursors and gets the runs' frames it
 * missed (replay), then every run frame and conversation event live.
 */
export class ParentEventSockets {
  readonly #ctx: DurableObjectState;
  readonly #listeners = new Set<(frame: AgentToolEventFrame | AgentChatEventFrame) => void>();
  /**
   * What was sent in this synchronous stretch and not yet written to the sockets, in order: runs of texts for every
   * event socket (`to: null`: run frames and conversation events) or for one socket (its replay, its page frames). At
   * the end of the stretch (a microtask), or before a socket is accepted, each run goes out — to a socket that asked
   * for batches as few messages as the bound allows, to any other one frame per message — and the event sockets are
   * looked up once (looking them up per frame cost more than sending it: bench/README.md, W2).
   */
  #pending: Outgoing[] = [];
  #flushQueued = false;
  /** Each socket's page requests (held weakly: a closed socket takes its budget with it). */
  readonly #pageRequests: RequestBudget<WebSocket>;
  readonly #refillMs: number;
  readonly #maxPageBytes: number;

  constructor(ctx: DurableObjectState, options: ParentEventSocketOptions & { clock: Clock }) {
    this.#ctx = ctx;
    const burst = positive("pageRequestBurst", options.pageRequestBurst ?? DEFAULT_PAGE_REQUEST_BURST);
    this.#refillMs = positive("pageRequestRefillMs", options.pageRequestRefillMs ?? DEFAULT_PAGE_REQUEST_REFILL_MS);
    this.#maxPageBytes = positive("maxPageBytes", options.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES);
    this.#pageRequests = new RequestBudget({ clock: options.clock, burst, refillMs: this.#refillMs });
  }

  /**
   * Accept an event socket and replay the runs to it from the request's cursors; with `agentToolPage=<limit>` a page
   * of them (SPEC §6, paged replay), then a page frame.
   */
  async connect(request: Request, registry: AgentToolRegistry): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const cursors = parseAgentToolCursors(params.get(AGENT_TOOL_CURSORS_PARAM));
    const limit = parseAgentToolPageLimit(params.get(AGENT_TOOL_PAGE_PARAM));
    const batches = asksForAgentToolBatches(params.get(AGENT_TOOL_BATCH_PARAM));
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    // What this stretch broadcast so far goes to the sockets it was broadcast to; the new socket gets what follows
    // (and, by its replay, what the runs hold).
    this.#flush();
    this.#ctx.acceptWebSocket(server, batches ? [EVENTS_TAG, BATCHES_TAG] : [EVENTS_TAG]);
    await this.#replayTo(server, batches, registry, { cursors, ...(limit !== null ? { page: { limit } } : {}) });
    return webSocketUpgrade(client);
  }

  /** True for an event socket (not a chat socket). */
  isEventSocket(ws: WebSocket): boolean {
    return this.#ctx.getTags(ws).includes(EVENTS_TAG);
  }

  /**
   * A message on an event socket: a request for the page of older runs is answered — within `maxPageBytes`, or, past
   * the socket's budget of requests, with a refusal that replays nothing (reading no run); anything else is ignored.
   */
  async receive(ws: WebSocket, message: string | ArrayBuffer, registry: AgentToolRegistry): Promise<void> {
    if (typeof message !== "string" || message.length > MAX_PAGE_REQUEST_LENGTH) return;
    const request = parseAgentToolPageRequest(message);
    if (!request) return;
    if (!this.#pageRequests.take(ws)) {
      const refusal: AgentToolPageFrame = {
        type: AGENT_TOOL_PAGE_TYPE,
        runs: 0,
        hasOlder: true,
        before: request.before,
        retryAfterMs: this.#refillMs,
      };
      this.#sendTo(ws, this.#asksForBatches(ws), JSON.stringify(refusal));
      return;
    }
    const page = { limit: request.limit, before: request.position, maxBytes: this.#maxPageBytes };
    await this.#replayTo(ws, this.#asksForBatches(ws), registry, { page });
  }

  /** Send a run's frame to every client. */
  broadcastRunFrame(frame: AgentToolEventFrame): void {
    this.#broadcast(encodeAgentToolFrame(frame));
    this.#tell(frame);
  }

  /** Tell every client what happened to the conversation. */
  announce(event: AgentChatEvent): void {
    const frame: AgentChatEventFrame = { type: AGENT_CHAT_EVENT_TYPE, event };
    this.#broadcast(encodeAgentChatEventFrame(frame));
    this.#tell(frame);
  }

  /** Hear every frame the sockets get, in this isolate (e.g. an AG-UI stream); returns how to stop. */
  listen(listener: (frame: AgentToolEventFrame | AgentChatEventFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(frame: AgentToolEventFrame | AgentChatEventFrame): void {
    for (const listener of this.#listeners) {
      try {
        listener(frame);
      } catch {
        // a listener never breaks the broadcast
      }
    }
  }

  #asksForBatches(ws: WebSocket): boolean {
    return this.#ctx.getTags(ws).includes(BATCHES_TAG);
  }

  /** Replay to one socket, then write it out; a paged replay ends with its page frame. */
  async #replayTo(ws: WebSocket, batches: boolean, registry: AgentToolRegistry, options: ReplayOptions): Promise<void> {
    const { runs, page } = await registry.replayAgentToolRuns(
      (frame) => this.#sendTo(ws, batches, encodeAgentToolFrame(frame)),
      options,
    );
    if (page) {
      const frame: AgentToolPageFrame = {
        type: AGENT_TOOL_PAGE_TYPE,
        runs,
        hasOlder: page.hasOlder,
        ...(page.before ? { before: encodeAgentToolPosition(page.before) } : {}),
      };
      this.#sendTo(ws, batches, JSON.stringify(frame));
    }
    this.#flush();
  }

  #broadcast(text: string): void {
    this.#queue(null, text);
  }

  #sendTo(ws: WebSocket, batches: boolean, text: string): void {
    this.#queue({ ws, batches }, text);
  }

  #queue(to: Outgoing["to"], text: string): void {
    const last = this.#pending.at(-1);
    if (last !== undefined && (last.to === to || (last.to !== null && to !== null && last.to.ws === to.ws))) {
      last.texts.push(text);
    } else {
      this.#pending.push({ to, texts: [text] });
    }
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => this.#flush());
  }

  /** Write out what is pending, in order. */
  #flush(): void {
    this.#flushQueued = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    let sockets: EventSocketsByForm | null = null;
    for (const { to, texts } of pending) {
      if (to !== null) {
        sendAll(to.ws, to.batches ? packAgentToolBatches(texts) : texts);
        continue;
      }
      sockets ??= this.#eventSockets();
      const batches = sockets.batched.length > 0 ? packAgentToolBatches(texts) : texts;
      for (const ws of sockets.batched) sendAll(ws, batches);
      for (const ws of sockets.plain) sendAll(ws, texts);
    }
  }

  #eventSockets(): EventSocketsByForm {
    const all = this.#ctx.getWebSockets(EVENTS_TAG);
    const batched = this.#ctx.getWebSockets(BATCHES_TAG);
    if (batched.length === 0) return { batched, plain: all };
    if (batched.length === all.length) return { batched, plain: [] };
    const asked = new Set(batched);
    return { batched, plain: all.filter((ws) => !asked.has(ws)) };
  }
}

/** Texts waiting to be sent: to every event socket (`null`), or to one (which asked for batches or not). */
type Outgoing = { to: { ws: WebSocket; batches: boolean } | null; texts: string[] };
type EventSocketsByForm = { batched: WebSocket[]; plain: WebSocket[] };

/** An option's value, a positive integer (else a clear error: the parent is misconfigured). */
function positive(name: keyof ParentEventSocketOptions, value: number): number {
  if (Number.isSafeInteger(value) && value > 0) return value;
  throw new AgentToolsError(
    "INVALID_ARGUMENT",
    `eventSocketOptions().${name} must be a positive integer, got ${value}`,
  );
}

function sendAll(ws: WebSocket, messages: readonly string[]): void {
  try {
    for (const message of messages) ws.send(message);
  } catch {
    // a closing socket
  }
}
