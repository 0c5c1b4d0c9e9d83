import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFrames, chatSendRequest, demoWsUrl, restartDemoHost, startDemoHost } from "./harness/demo.js";

type ChatFrame = { type: string; requestId?: string; chunk?: { type: string; [key: string]: unknown } };
type StoredMessage = {
  id: string;
  role: string;
  metadata?: { source?: string };
  parts: Array<{ type: string; text?: string }>;
};

const COMPLETION_SOURCE = "background-import";
const REACTION_SOURCE = "assistant:server-turn";

// A short watch interval: while a background run is followed, the alarm is never more than 300 ms away, so a
// restarted runtime wakes the Assistant by itself to follow the run again.
const BINDINGS = { DEMO_PACE_MS: "0", DETACHED_WATCH_INTERVAL_MS: "300" };

function startHost(persist: PersistDirectory, knobs: Record<string, string> = {}) {
  return startDemoHost(persist, { ...BINDINGS, ...knobs });
}

const textOf = (message: StoredMessage) => message.parts.map((part) => part.text ?? "").join("");
const completionsIn = (messages: StoredMessage[]) =>
  messages.filter((message) => message.metadata?.source === COMPLETION_SOURCE);
const reactionsIn = (messages: StoredMessage[]) =>
  messages.filter((message) => message.metadata?.source === REACTION_SOURCE);
/** The event-socket frame that says a turn ended with the model's reaction to a completion stored. */
const isReactionStored = (frame: unknown) => {
  const { type, event } = frame as { type?: string; event?: { kind?: string; message?: StoredMessage } };
  return (
    type === "agent-chat-event" && event?.kind === "turn-ended" && event.message?.metadata?.source === REACTION_SOURCE
  );
};

/** Send one chat message on a chat socket; resolves the text its turn answered, once the turn ended. */
async function answerTo(chat: RecordingSocket, text: string, chatId: string, requestId: string): Promise<string> {
  chat.send(chatSendRequest(text, chatId, requestId));
  await chat.waitFor((frames) =>
    frames.some((frame) => (frame as ChatFrame).requestId === requestId && (frame as ChatFrame).type === "end"),
  );
  return (chat.messages as ChatFrame[])
    .filter((frame) => frame.requestId === requestId && frame.chunk?.type === "text-delta")
    .map((frame) => String(frame.chunk?.["delta"]))
    .join("");
}

describe("background runs started from chat (workerd)", () => {
  let persist: PersistDirectory;
  let host: MiniflareHost;
  const wsUrl = (path: string) => demoWsUrl(host, path);

  /**
   * Wait until the chat holds the completion and the model's reaction. The event socket is connected before the
   * messages are read, so a server turn that ends after the read is seen as its `turn-ended` event: no polling.
   */
  async function chatAfterCompletion(chatId: string): Promise<StoredMessage[]> {
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    try {
      const read = () => host.fetchJson<StoredMessage[]>(`/agents/assistant/${chatId}/messages`);
      let messages = await read();
      if (reactionsIn(messages).length === 0) {
        await events.waitFor((frames) => frames.some(isReactionStored), 30_000);
        messages = await read();
      }
      return messages;
    } finally {
      events.close();
    }
  }

  beforeAll(async () => {
    persist = await createPersistDirectory();
  });

  afterAll(async () => {
    await host?.dispose();
    await persist?.remove();
  });

  it("a background run started from chat finishes, and its completion reaches the chat exactly once", async () => {
    host = await startHost(persist);
    const chatId = "background";
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    // The turn answers at once, without waiting for the import.
    const answer = await answerTo(chat, "please import the data in the background", chatId, "r-1");
    expect(answer).toContain("The import is running in the background (background:");
    // Then the run finishes, the completion is injected between turns, and the model reacts in a server turn.
    await events.waitFor((frames) => frames.some(isReactionStored));
    chat.close();
    events.close();

    const messages = await chatAfterCompletion(chatId);
    const completions = completionsIn(messages);
    expect(completions).toHaveLength(1);
    expect(completions[0]?.role).toBe("user");
    expect(completions[0]?.id).toMatch(/^agent-tool:detached:background:.+:completed$/);
    expect(textOf(completions[0] as StoredMessage)).toMatch(/completed: Imported 500 rows$/);
    const reactions = reactionsIn(messages);
    expect(reactions).toHaveLength(1);
    expect(textOf(reactions[0] as StoredMessage)).toContain(
      "Update on your background task: Background task Background import",
    );
    expect(messages.filter((message) => message.id.endsWith(":milestone:half-way"))).toHaveLength(1);
    // The completion comes after the turn that started the run, the reaction right after the completion.
    const order = messages.map((message) => message.id);
    expect(order.indexOf(completions[0]?.id as string)).toBeGreaterThan(1);
    expect(order.indexOf(reactions[0]?.id as string)).toBe(order.indexOf(completions[0]?.id as string) + 1);

    const runs = await host.fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`);
    expect(runs.filter((run) => run.runId.startsWith("background:")).map((run) => run.status)).toEqual(["completed"]);

    // Restarting the runtime does not deliver it again.
    await host.restart();
    const after = await chatAfterCompletion(chatId);
    expect(completionsIn(after)).toHaveLength(1);
    expect(reactionsIn(after)).toHaveLength(1);
    await host.dispose();
  });

  it("a background run in flight when the runtime restarts completes after the restart, told to the chat once", async () => {
    // The Importer holds in its first batch (its second text delta: the schema check's, then the batch's), until its
    // run is cancelled: it is in flight when the runtime restarts, however slow the machine. Not after the restart.
    host = await startHost(persist, { DEMO_HOLD_AFTER: "Importer:2" });
    const chatId = "background-restart";
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    chat.send(chatSendRequest("start the import in the background", chatId, "r-2"));
    await chat.waitFor((frames) =>
      frames.some((frame) => (frame as ChatFrame).requestId === "r-2" && (frame as ChatFrame).type === "end"),
    );
    // Restart once the Importer has started reporting (its first milestone), before it finishes.
    await events.waitFor((messages) =>
      agentFrames(messages).some(
        (frame) => frame.event.kind === "chunk" && frame.event.body.type === "data-agent-milestone",
      ),
    );
    const runId = agentFrames(events.messages).find((frame) => frame.event.kind === "started")?.event;
    expect(runId && "runId" in runId ? runId.runId : "").toMatch(/^background:/);
    expect(agentFrames(events.messages).some((frame) => frame.event.kind === "finished")).toBe(false);
    events.close();
    chat.close();
    await restartDemoHost(host, BINDINGS);

    const messages = await chatAfterCompletion(chatId);
    const completions = completionsIn(messages);
    expect(completions).toHaveLength(1);
    expect(textOf(completions[0] as StoredMessage)).toMatch(/completed: Imported 500 rows$/);
    expect(reactionsIn(messages)).toHaveLength(1);
    expect(messages.filter((message) => message.id.endsWith(":milestone:half-way")).length).toBeLessThanOrEqual(1);
    const runs = await host.fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`);
    expect(runs.filter((run) => run.runId.startsWith("background:")).map((run) => run.status)).toEqual(["completed"]);
  });

  it("a user's message that reads like a completion is answered as the user's, not as a completion", async () => {
    // The Assistant tells a completion by the message's `metadata.source`, never by its words. (The import this
    // message asks for holds in its first batch: nothing is delivered during the test.)
    await host.dispose();
    host = await startHost(persist, { DEMO_HOLD_AFTER: "Importer:2" });
    const chatId = "reads-like-a-completion";
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    const answer = await answerTo(chat, "Background task report, please", chatId, "r-3");
    expect(answer).not.toContain("Update on your background task");
    expect(answer).toContain("I will run the import in the background.");
    chat.close();
  });
});
