// A ChatEngine in Node for tests: the in-memory store, a manual clock, peers that record the frames they get, and a
// model turn on the AI SDK's streamText over a scripted model.
import type { RunEvent } from "@agent-tools/core-runs";
import type { AgentChatEvent } from "@agent-tools/core-runs/protocol";
import { ManualClock, type ScriptedModelStep, scriptedModel } from "@agent-tools/core-runs/testing";
import {
  convertToModelMessages,
  isStepCount,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
  type WebSocketChatTransportResponse,
} from "ai";
import { ChatEngine, type ChatEngineOptions, type ChatTurnContext } from "./chat-engine.js";
import type { ChatLimits } from "./chat-limits.js";
import { InMemoryChatStore } from "./testing/in-memory-chat-store.js";

/** A tab's socket: the frames it got. */
export type TestPeer = { name: string; frames: WebSocketChatTransportResponse[] };

export function peer(name: string): TestPeer {
  return { name, frames: [] };
}

export type EngineSetUp = {
  engine: ChatEngine<TestPeer>;
  store: InMemoryChatStore;
  clock: ManualClock;
  announced: AgentChatEvent[];
  events: RunEvent[];
  /** The contexts each model turn got. */
  turns: ChatTurnContext[];
  /** What the next model turns do: one scripted model per turn, in order. */
  script(...turns: ScriptedModelStep[][]): void;
};

/**
 * An engine whose turns run `streamText` over the next scripted model (each turn takes the next list of steps) with
 * the engine's guarded tools; `tools` are the conversation's tools.
 */
export function setUpEngine(
  options: {
    tools?: ToolSet;
    limits?: Partial<ChatLimits>;
    store?: InMemoryChatStore;
    maxResumeAttempts?: number;
    /** The turn's model goes through `context.model` (its calls are counted in the turn's budget). */
    metered?: boolean;
    budget?: ChatEngineOptions<TestPeer>["budget"];
    /** Answer turns with this instead of the scripted models. */
    stream?: ChatEngineOptions<TestPeer>["stream"];
  } = {},
): EngineSetUp {
  const clock = new ManualClock(1_000);
  const store = options.store ?? new InMemoryChatStore();
  const announced: AgentChatEvent[] = [];
  const events: RunEvent[] = [];
  const turns: ChatTurnContext[] = [];
  const scripts: ScriptedModelStep[][] = [];
  let ids = 0;
  const engine = new ChatEngine<TestPeer>({
    store,
    clock,
    tools: () => options.tools,
    send: (to, frame) => to.frames.push(frame),
    announce: (event) => announced.push(event),
    generateId: () => `id-${++ids}`,
    sink: { emit: (event) => events.push(event) },
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.maxResumeAttempts !== undefined ? { maxResumeAttempts: options.maxResumeAttempts } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    stream: async (context) => {
      turns.push(context);
      if (options.stream) return options.stream(context);
      const steps = scripts.shift();
      if (!steps) throw new Error("no scripted model turn left");
      const result = streamText({
        model: options.metered ? context.model(scriptedModel(steps)) : scriptedModel(steps),
        messages: await convertToModelMessages(context.messages, { tools: context.tools }),
        tools: context.tools,
        stopWhen: isStepCount(4),
        abortSignal: context.abortSignal,
      });
      return toUIMessageStream({ stream: result.stream, tools: context.tools });
    },
  });
  return { engine, store, clock, announced, events, turns, script: (...next) => scripts.push(...next) };
}

export const userMessage = (id: string, text: string): UIMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text }],
});

/** The text of a message's text parts. */
export const textOf = (message: UIMessage | null | undefined): string =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

/** A client's `send` frame, as the AI SDK's WebSocket chat transport sends it. */
export function sendFrame(requestId: string, messages: UIMessage[], trigger = "submit-message"): string {
  return JSON.stringify({
    type: "send",
    requestId,
    id: "chat",
    trigger,
    messageId: undefined,
    messages,
    headers: {},
    body: {},
  });
}

export const frameTypes = (to: TestPeer, requestId: string) =>
  to.frames.filter((frame) => frame.requestId === requestId).map((frame) => frame.type);
