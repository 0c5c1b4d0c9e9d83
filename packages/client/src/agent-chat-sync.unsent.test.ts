// createAgentChatSync and the messages this tab sent that the server does not hold: never silently dropped, kept
// across a reload, re-sent only when asked (at most once), and the connection's state for a UI that disables Send.
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import {
  assistant,
  disconnectError,
  flush,
  refusedError,
  setupChatSync as setup,
  user,
} from "./agent-chat-sync.test-utils.js";
import { memoryUnsentStorage, webStorageUnsentStorage } from "./ports/unsent-storage.js";

type Context = ReturnType<typeof setup>;

/** The sync has read the conversation and the server answered its first question (no turn in flight). */
async function started(context: Context): Promise<void> {
  await flush();
  await context.chat.settleResume();
}

/** This tab sends `message` and the send fails with `error` (the page tells the sync of each status change). */
async function sendAndFail({ chat, sync }: Context, message: UIMessage, error: Error): Promise<void> {
  chat.send(message);
  sync.chatChanged();
  chat.fail(error);
  sync.chatChanged();
  await flush();
}

describe("createAgentChatSync: messages the server does not hold", () => {
  it("a send cut by a disconnect is reported not sent, and stays after the recovery and every later read", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, server, tell } = context;
    await started(context);
    await sendAndFail(context, user("lost", "research cats"), disconnectError());
    expect(sync.getSnapshot().unsent).toEqual([
      { messageId: "lost", reason: "disconnected", error: disconnectError().message },
    ]);
    // The recovery read and resume (the server holds no turn): the chat is ready again, the message still there.
    await chat.settleResume();
    sync.chatChanged();
    expect(chat.status).toBe("ready");
    expect(chat.ids()).toEqual(["u1", "a1", "lost"]);
    // Another tab's turn: messages come and the conversation is read again; the message stays, last, not sent.
    server.stored = [user("u1"), assistant("a1"), user("u2"), assistant("a2")];
    tell({ kind: "message", message: user("u2") });
    tell({ kind: "turn-ended", turnId: "t2", status: "completed", message: assistant("a2") });
    await flush();
    sync.chatChanged();
    await flush();
    expect(chat.ids()).toEqual(["u1", "a1", "u2", "a2", "lost"]);
    expect(sync.getSnapshot().unsent.map((unsent) => unsent.messageId)).toEqual(["lost"]);
  });

  it("a send the server refused is reported with the server's error", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync } = context;
    await started(context);
    await sendAndFail(context, user("big"), refusedError());
    expect(sync.getSnapshot().unsent).toEqual([{ messageId: "big", reason: "refused", error: refusedError().message }]);
    expect(chat.ids()).toEqual(["u1", "a1", "big"]);
  });

  it("a message the server stored is never reported, also when its answer failed", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, server, tell } = context;
    await started(context);
    chat.send(user("u2"));
    sync.chatChanged();
    server.stored = [...server.stored, user("u2")];
    tell({ kind: "message", message: user("u2") });
    chat.fail(new Error("The model is unavailable"));
    sync.chatChanged();
    await flush();
    expect(sync.getSnapshot().unsent).toEqual([]);
  });

  it("a send whose answer began and then failed is not reported, even before the server's events tell of it", async () => {
    // The chat's socket carries the answer and its error; the event socket tells of the stored message, maybe later.
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, server, tell } = context;
    await started(context);
    chat.send(user("u2"));
    sync.chatChanged();
    server.stored = [...server.stored, user("u2"), assistant("a2", "This answer failed: The model is unavailable")];
    chat.messages = [...chat.messages, assistant("a2", "Let me think.")]; // the answer began streaming: it was taken
    chat.fail(new Error("The model is unavailable"));
    sync.chatChanged();
    // What a page renders now, before any read or event: not "Not sent — the server refused it".
    expect(sync.getSnapshot().unsent).toEqual([]);
    await flush();
    expect(sync.getSnapshot().unsent).toEqual([]);
    tell({ kind: "message", message: user("u2") });
    await flush();
    expect(sync.getSnapshot().unsent).toEqual([]);
    expect(chat.ids()).toEqual(["u1", "a1", "u2", "a2"]);
  });

  it("a send that ended well is not reported, even before the server's events tell of its message", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, server } = context;
    await started(context);
    chat.send(user("u2"));
    sync.chatChanged();
    server.stored = [...server.stored, user("u2"), assistant("a2")];
    chat.finish(assistant("a2"));
    sync.chatChanged();
    await flush();
    expect(sync.getSnapshot().unsent).toEqual([]);
    expect(chat.ids()).toEqual(["u1", "a1", "u2", "a2"]);
  });

  it("a send that ended with no answer and that the server does not hold (stopped while queued) is reported", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, server } = context;
    await started(context);
    chat.send(user("u2"));
    sync.chatChanged();
    chat.finish();
    sync.chatChanged();
    await flush();
    expect(server.reads).toBe(2); // read again to know
    expect(sync.getSnapshot().unsent).toEqual([{ messageId: "u2", reason: "dropped", error: null }]);
    expect(chat.ids()).toEqual(["u1", "a1", "u2"]);
  });

  it("keeps a message not sent across a reload of the tab, and forgets one the server stored meanwhile", async () => {
    const storage = memoryUnsentStorage();
    const first = setup({ stored: [user("u1"), assistant("a1")], storage });
    await started(first);
    await sendAndFail(first, user("lost", "research cats"), disconnectError());
    first.sync.close();

    const reloaded = setup({ stored: [user("u1"), assistant("a1")], storage });
    await started(reloaded);
    expect(reloaded.chat.ids()).toEqual(["u1", "a1", "lost"]);
    expect(reloaded.chat.messages.at(-1)).toEqual(user("lost", "research cats"));
    expect(reloaded.sync.getSnapshot().unsent).toEqual([
      { messageId: "lost", reason: "disconnected", error: disconnectError().message },
    ]);
    reloaded.sync.close();

    // The server got it after all (its send was in flight when the tab reloaded): no longer reported, nor kept.
    const later = setup({ stored: [user("u1"), assistant("a1"), user("lost", "research cats")], storage });
    await started(later);
    expect(later.sync.getSnapshot().unsent).toEqual([]);
    expect(later.chat.ids()).toEqual(["u1", "a1", "lost"]);
    expect(storage.load()).toEqual([]);
  });

  it("a send still in flight when the tab reloaded is reported not sent after the reload, unless stored", async () => {
    const storage = memoryUnsentStorage();
    const first = setup({ stored: [user("u1"), assistant("a1")], storage });
    await started(first);
    first.chat.send(user("cut"));
    first.sync.chatChanged();
    first.sync.close();
    const reloaded = setup({ stored: [user("u1"), assistant("a1")], storage });
    await started(reloaded);
    expect(reloaded.chat.ids()).toEqual(["u1", "a1", "cut"]);
    expect(reloaded.sync.getSnapshot().unsent).toEqual([{ messageId: "cut", reason: "disconnected", error: null }]);
  });

  it("Retry sends the message again, last after the stored conversation; once stored it is forgotten", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, server, tell, storage } = context;
    await started(context);
    await sendAndFail(context, user("lost"), disconnectError());
    await chat.settleResume();
    expect(storage.load().map((record) => record.message.id)).toEqual(["lost"]);

    const retried = sync.retryUnsent("lost");
    expect(chat.regenerations.map((each) => each.messageId)).toEqual(["lost"]);
    expect(sync.getSnapshot().unsent).toEqual([]); // sending again
    expect(await sync.retryUnsent("lost")).toBe(false); // at most once at a time
    server.stored = [user("u1"), assistant("a1"), user("lost"), assistant("a2")];
    tell({ kind: "message", message: user("lost") });
    chat.regenerations[0]?.settle();
    expect(await retried).toBe(true);
    await flush();
    expect(sync.getSnapshot().unsent).toEqual([]);
    expect(storage.load()).toEqual([]);
    expect(chat.regenerations).toHaveLength(1);
  });

  it("Retry that fails again reports the message not sent again, with the new reason", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync } = context;
    await started(context);
    await sendAndFail(context, user("lost"), disconnectError());
    await chat.settleResume();
    const retried = sync.retryUnsent("lost");
    chat.regenerations[0]?.settle(refusedError());
    await retried;
    await flush();
    expect(sync.getSnapshot().unsent).toEqual([
      { messageId: "lost", reason: "refused", error: refusedError().message },
    ]);
    expect(chat.ids()).toEqual(["u1", "a1", "lost"]);
  });

  it("Discard removes the message from the chat and from the tab's storage", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, storage } = context;
    await started(context);
    await sendAndFail(context, user("lost"), refusedError());
    expect(sync.discardUnsent("lost")).toBe(true);
    expect(chat.ids()).toEqual(["u1", "a1"]);
    expect(sync.getSnapshot().unsent).toEqual([]);
    expect(storage.load()).toEqual([]);
    expect(sync.discardUnsent("lost")).toBe(false);
  });

  it("says the conversation is disconnected while the event socket reconnects or the chat failed with a disconnect", async () => {
    const context = setup({ stored: [user("u1"), assistant("a1")] });
    const { chat, sync, sockets, clock } = context;
    await started(context);
    expect(sync.getSnapshot().isDisconnected).toBe(false);
    sockets.last().drop();
    expect(sync.getSnapshot().isDisconnected).toBe(true);
    await clock.advanceBy(500);
    sockets.last().open();
    await flush();
    expect(sync.getSnapshot().isDisconnected).toBe(false);
    await chat.settleResume();

    chat.status = "error"; // a turn this tab followed was cut: the chat socket dropped, the event socket not yet
    chat.error = disconnectError();
    sync.chatChanged();
    expect(sync.getSnapshot().isDisconnected).toBe(true);
    await flush();
    await chat.settleResume(); // recovered: the server answered the resume
    sync.chatChanged();
    expect(sync.getSnapshot().isDisconnected).toBe(false);
  });
});

describe("webStorageUnsentStorage", () => {
  it("keeps records under its key, forgets them on an empty save, and ignores what it did not write", () => {
    const items = new Map<string, string>();
    const web = {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    };
    const storage = webStorageUnsentStorage(web, "k");
    const record = { message: user("m1"), reason: "refused" as const, error: "too large" };
    storage.save([record]);
    expect(webStorageUnsentStorage(web, "k").load()).toEqual([record]);
    expect(webStorageUnsentStorage(web, "other").load()).toEqual([]);
    storage.save([]);
    expect(items.has("k")).toBe(false);
    items.set("k", "{not json");
    expect(storage.load()).toEqual([]);
    items.set("k", JSON.stringify([record, { message: { id: 1 } }, "x"]));
    expect(storage.load()).toEqual([record]);
    const full = {
      ...web,
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
    };
    expect(() => webStorageUnsentStorage(full, "k").save([record])).not.toThrow();
  });
});
