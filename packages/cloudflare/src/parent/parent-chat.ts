import { ChatEngine, handleChatRequest, RequestBudget } from "@agent-tools/chat";
import type { ChatEngineOptions, ChatLimits, ChatTurnBudget } from "@agent-tools/chat/internal";
import { AgentToolsError, type Clock, getDefaultRunEventHub } from "@agent-tools/core-runs";
import type { RunEventSink } from "@agent-tools/core-runs/internal";
import type { AgentChatEvent } from "@agent-tools/core-runs/protocol";
import type { UIMessage, WebSocketChatTransportResponse } from "ai";
import { DurableObjectChatStore } from "../adapters/durable-object-chat-store.js";
import { webSocketUpgrade } from "../websocket-upgrade.js";

const CHAT_TAG = "agent-tools:chat";

/** Options of the parent's conversation (`AgentToolParent.chatOptions()`). */
export type ParentChatOptions = {
  /** Size and queue limits of the conversation (see `@agent-tools/chat`'s `ChatLimits`). */
  limits?: Partial<ChatLimits>;
  /**
   * The budget of each turn's tree of runs (tokens, cost with `costOf`, `wallTimeMs`, depth, runs, concurrency):
   * inherited by every run the turn's tools dispatch, at every depth, and only ever narrowed below.
   */
  budget?: ChatTurnBudget;
  /** How often, at most, a streaming answer is written (default 250 ms). */
  writeIntervalMs?: number;
  /** How many times a cut turn is resumed before it is closed as interrupted (default 3). */
  maxResumeAttempts?: number;
  /** `resume` requests a socket may make at once (default 20), then one per `resumeRefillMs` (default 500 ms). */
  resumeBurst?: number;
  resumeRefillMs?: number;
};

type HostedEngineOptions = Pick<ChatEngineOptions<WebSocket>, "tools" | "track" | "onStop" | "onBudgetExhausted"> & {
  /** How a turn is answered (the parent's `onChatMessage`); none: the parent has no conversation. */
  stream: ChatEngineOptions<WebSocket>["stream"] | undefined;
};

/** What a parent without `onChatMessage` answers a chat message with. */
export const NO_CONVERSATION_TEXT =
  "This agent has no conversation: it defines no onChatMessage, so it answers no chat messages (it runs its agent tools from its own methods).";

/**
 * The parent's durable conversation on a Durable Object: `@agent-tools/chat`'s engine over the object's SQLite
 * storage, its chat sockets (hibernation-tagged), each socket's budget of resumes, and its events told to every
 * client through `announce`. The engine decides everything; this only maps sockets and storage to it.
 */
export class ParentChat {
  readonly engine: ChatEngine<WebSocket>;
  /** False for a parent without `onChatMessage`: every send is refused. */
  readonly hasConversation: boolean;
  readonly #ctx: DurableObjectState;
  readonly #resumes: RequestBudget<WebSocket>;

  constructor(
    ctx: DurableObjectState,
    options: HostedEngineOptions &
      ParentChatOptions & { clock: Clock; announce(event: AgentChatEvent): void; sink?: RunEventSink },
  ) {
    this.#ctx = ctx;
    this.hasConversation = options.stream !== undefined;
    this.#resumes = new RequestBudget({
      clock: options.clock,
      burst: options.resumeBurst ?? 20,
      refillMs: options.resumeRefillMs ?? 500,
    });
    this.engine = new ChatEngine<WebSocket>({
      store: new DurableObjectChatStore(ctx.storage),
      clock: options.clock,
      stream: options.stream ?? noConversation,
      tools: options.tools,
      send,
      announce: options.announce,
      generateId: () => crypto.randomUUID(),
      sink: options.sink ?? getDefaultRunEventHub(),
      ...(options.track ? { track: options.track } : {}),
      ...(options.onStop ? { onStop: options.onStop } : {}),
      ...(options.onBudgetExhausted ? { onBudgetExhausted: options.onBudgetExhausted } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.writeIntervalMs !== undefined ? { writeIntervalMs: options.writeIntervalMs } : {}),
      ...(options.maxResumeAttempts !== undefined ? { maxResumeAttempts: options.maxResumeAttempts } : {}),
    });
  }

  /** Accept a chat socket (the AI SDK's `WebSocketChatTransport` connects here). */
  accept(): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.#ctx.acceptWebSocket(server, [CHAT_TAG]);
    return webSocketUpgrade(client);
  }

  isChatSocket(ws: WebSocket): boolean {
    return this.#ctx.getTags(ws).includes(CHAT_TAG);
  }

  /** One frame from a chat socket; resolves once a send's turn ended. */
  receive(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const refused = this.hasConversation ? null : sendRequestId(message);
    if (refused !== null)
      return Promise.resolve(send(ws, { type: "error", requestId: refused, errorText: NO_CONVERSATION_TEXT }));
    return handleChatRequest({ engine: this.engine, send, mayResume: (peer) => this.#resumes.take(peer) }, ws, message);
  }

  /** Send a user message from code and wait for the stored answer (rejects for a parent without a conversation). */
  sendMessage(message: string | UIMessage): Promise<UIMessage | null> {
    if (!this.hasConversation) return Promise.reject(new AgentToolsError("INVALID_ARGUMENT", NO_CONVERSATION_TEXT));
    return this.engine.sendMessage(message);
  }

  /** A socket closed or failed: it follows nothing, and its sends still waiting are dropped. */
  disconnect(ws: WebSocket): void {
    this.engine.disconnect(ws);
  }

  /** A socket of the parent closed (any of them: a chat socket's sends still waiting are dropped); close our end. */
  closed(ws: WebSocket, code: number): void {
    this.disconnect(ws);
    try {
      ws.close(code === 1005 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }
}

function send(ws: WebSocket, frame: WebSocketChatTransportResponse): void {
  try {
    ws.send(JSON.stringify(frame));
  } catch {
    // a closing socket: the turn goes on and is stored
  }
}

function noConversation(): never {
  throw new AgentToolsError("INVALID_ARGUMENT", NO_CONVERSATION_TEXT);
}

/** The request id of a `send` frame (`null`: not a send; anything malformed is the chat handler's to answer). */
function sendRequestId(message: string | ArrayBuffer): string | null {
  try {
    const value = JSON.parse(typeof message === "string" ? message : new TextDecoder().decode(message)) as unknown;
    const frame = value as { type?: unknown; requestId?: unknown } | null;
    return frame?.type === "send" && typeof frame.requestId === "string" ? frame.requestId : null;
  } catch {
    return null;
  }
}
