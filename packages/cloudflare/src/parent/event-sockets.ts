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
  parseAgentToolCursors,
  parseAgentToolPageLimit,
  parseAgentToolPageRequest,
} from "@agent-tools/core-runs/protocol";
import { webSocketUpgrade } from "../websocket-upgrade.js";
import { EventOutbox } from "./event-outbox.js";

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
 * missed (replay), then every run frame and conversation event live — one frame per message, or, to a socket that
 * asked with `agentToolBatch=1`, a synchronous stretch's frames as one JSON array message (SPEC §6, batches).
 */
export class ParentEventSockets {
  readonly #ctx: DurableObjectState;
  readonly #listeners = new Set<(frame: AgentToolEventFrame | AgentChatEventFrame) => void>();
  /** What this stretch sent, written out at its end: batches to the sockets that asked (`event-outbox.ts`). */
  readonly #outbox: EventOutbox<WebSocket>;
  /** Each socket's page requests (held weakly: a closed socket takes its budget with it). */
  readonly #pageRequests: RequestBudget<WebSocket>;
  readonly #refillMs: number;
  readonly #maxPageBytes: number;

  constructor(ctx: DurableObjectState, options: ParentEventSocketOptions & { clock: Clock }) {
    this.#ctx = ctx;
    this.#outbox = new EventOutbox({ sockets: () => this.#eventSockets(), isOpen, send });
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
    this.#outbox.flush();
    this.#ctx.acceptWebSocket(server, batches ? [EVENTS_TAG, BATCHES_TAG] : [EVENTS_TAG]);
    this.#outbox.socketsChanged();
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
      this.#outbox.sendTo(ws, this.#asksForBatches(ws), JSON.stringify(refusal));
      return;
    }
    const page = { limit: request.limit, before: request.position, maxBytes: this.#maxPageBytes };
    await this.#replayTo(ws, this.#asksForBatches(ws), registry, { page });
  }

  /** Send a run's frame to every client. */
  broadcastRunFrame(frame: AgentToolEventFrame): void {
    this.#outbox.broadcast(encodeAgentToolFrame(frame));
    this.#tell(frame);
  }

  /** Tell every client what happened to the conversation. */
  announce(event: AgentChatEvent): void {
    const frame: AgentChatEventFrame = { type: AGENT_CHAT_EVENT_TYPE, event };
    this.#outbox.broadcast(encodeAgentChatEventFrame(frame));
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
      (frame) => this.#outbox.sendTo(ws, batches, encodeAgentToolFrame(frame)),
      options,
    );
    if (page) {
      const frame: AgentToolPageFrame = {
        type: AGENT_TOOL_PAGE_TYPE,
        runs,
        hasOlder: page.hasOlder,
        ...(page.before ? { before: encodeAgentToolPosition(page.before) } : {}),
      };
      this.#outbox.sendTo(ws, batches, JSON.stringify(frame));
    }
    this.#outbox.flush();
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

type EventSocketsByForm = { batched: WebSocket[]; plain: WebSocket[] };

/** An option's value, a positive integer (else a clear error: the parent is misconfigured). */
function positive(name: keyof ParentEventSocketOptions, value: number): number {
  if (Number.isSafeInteger(value) && value > 0) return value;
  throw new AgentToolsError(
    "INVALID_ARGUMENT",
    `eventSocketOptions().${name} must be a positive integer, got ${value}`,
  );
}

/** `WebSocket.OPEN`: a socket that is neither closing nor closed. */
const OPEN = 1;

function isOpen(ws: WebSocket): boolean {
  return ws.readyState === OPEN;
}

function send(ws: WebSocket, message: string): void {
  try {
    ws.send(message);
  } catch {
    // a closing socket
  }
}
