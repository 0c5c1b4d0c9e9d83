import { describe, expect, it } from "vitest";
import { assistant, flush, setupChatSync as setup, user } from "./agent-chat-sync.test-utils.js";

describe("createAgentChatSync", () => {
  it("starts from the stored conversation and asks once whether a turn is in flight", async () => {
    const { chat, sync, server } = setup({ stored: [user("u1"), assistant("a1")] });
    expect(sync.getSnapshot().status).toBe("loading");
    await flush();
    expect(chat.ids()).toEqual(["u1", "a1"]);
    expect(sync.getSnapshot()).toMatchObject({ status: "ready", error: null, activeTurn: null });
    expect(server.reads).toBe(1);
    expect(chat.resumes).toHaveLength(1);
  });

  it("reads the conversation again when the event socket opens, and asks again", async () => {
    const { chat, sync, server, sockets } = setup({ open: false, stored: [user("u1")] });
    await flush();
    await chat.settleResume();
    server.stored = [user("u1"), assistant("a1")];
    sockets.last().open();
    await flush();
    expect(server.reads).toBe(2);
    expect(chat.ids()).toEqual(["u1", "a1"]);
    expect(chat.resumes).toHaveLength(1);
    sync.close();
  });

  it("shows a message another tab or the server stored at once, and the same message again changes nothing", async () => {
    const { chat, tell } = setup({ stored: [user("u1"), assistant("a1")] });
    await flush();
    tell({ kind: "message", message: user("u2", "from the other tab") });
    expect(chat.ids()).toEqual(["u1", "a1", "u2"]);
    const before = chat.messages;
    tell({ kind: "message", message: user("u2", "from the other tab") });
    expect(chat.messages).toBe(before);
  });

  it("follows the turn in flight when told the chat became idle; at most once per turn", async () => {
    const { chat, sync, tell } = setup();
    await flush();
    await chat.settleResume();
    chat.status = "streaming"; // this tab is busy with a stream of its own: no resume now
    tell({ kind: "turn-started", turnId: "t1", origin: "server", resumed: false });
    expect(sync.getSnapshot().activeTurn).toEqual({ turnId: "t1", origin: "server", resumed: false });
    expect(chat.resumes).toHaveLength(0);
    chat.status = "ready";
    sync.chatChanged();
    expect(chat.resumes).toHaveLength(1);
    await chat.settleResume(); // answered `no-active`: the turn ended meanwhile, its event not here yet
    sync.chatChanged();
    expect(chat.resumes).toHaveLength(0);
  });

  it("follows a turn started while idle at once, and never starts a second resume while one is in flight", async () => {
    const { chat, tell } = setup();
    await flush();
    expect(chat.resumes).toHaveLength(1); // the start's question is still in flight
    tell({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false });
    expect(chat.resumes).toHaveLength(1);
    await chat.settleResume(); // the question was answered before t1 started: now follow t1
    expect(chat.resumes).toHaveLength(1);
    tell({ kind: "turn-started", turnId: "t2", origin: "client", resumed: false });
    expect(chat.resumes).toHaveLength(1);
    await chat.settleResume();
    expect(chat.resumes).toHaveLength(1); // t2, after t1's stream settled
  });

  it("replaces a followed reply with the stored answer, and reads the conversation again once idle", async () => {
    const { chat, sync, server, tell } = setup({ stored: [user("u1")] });
    await flush();
    await chat.settleResume();
    chat.messages = [user("u1"), assistant("a1", "partial")];
    server.stored = [user("u1"), user("elsewhere"), assistant("a1", "whole answer")];
    tell({ kind: "turn-ended", turnId: "t1", status: "completed", message: assistant("a1", "whole answer") });
    await flush();
    expect(sync.getSnapshot().endedTurns).toEqual({ a1: "completed" });
    // The conversation read again puts what this tab missed in the server's order.
    expect(chat.ids()).toEqual(["u1", "elsewhere", "a1"]);
    expect(chat.messages.at(-1)).toEqual(assistant("a1", "whole answer"));
    expect(server.reads).toBe(2);
  });

  it("does not replace a reply while it streams it; reads the conversation once the stream settled", async () => {
    const { chat, sync, server, tell } = setup({ stored: [user("u1")] });
    await flush();
    await chat.settleResume();
    chat.status = "streaming";
    chat.messages = [user("u1"), assistant("a1", "almost")];
    tell({ kind: "turn-ended", turnId: "t1", status: "aborted", message: assistant("a1", "stored") });
    await flush();
    expect(chat.messages.at(-1)).toEqual(assistant("a1", "almost"));
    expect(server.reads).toBe(1);
    expect(sync.getSnapshot().endedTurns).toEqual({ a1: "aborted" });
    chat.status = "ready";
    server.stored = [user("u1"), assistant("a1", "stored")];
    sync.chatChanged();
    await flush();
    expect(server.reads).toBe(2);
    expect(chat.messages.at(-1)).toEqual(assistant("a1", "stored"));
    expect(chat.resumes).toHaveLength(0); // a read after a turn asks nothing: turn events say what starts
  });

  it("keeps what this tab sent and the reply it streams when it reads the conversation mid-turn", async () => {
    const { chat, sync, server } = setup({ stored: [user("u1"), assistant("a1")] });
    await flush();
    await chat.settleResume();
    chat.status = "streaming";
    chat.messages = [user("u1"), assistant("a1"), user("mine"), assistant("reply", "so far")];
    server.stored = [user("u1"), assistant("a1"), user("other"), assistant("a2"), user("mine")];
    await sync.reload();
    expect(chat.ids()).toEqual(["u1", "a1", "other", "a2", "mine", "reply"]);
  });

  it("stops the turn it heard of for every tab, and asks nothing when it knows of none", async () => {
    const { sync, tell, stops } = setup();
    await flush();
    expect(await sync.stopTurn()).toBe(false);
    expect(stops).toEqual([]);
    tell({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false });
    expect(await sync.stopTurn()).toBe(true);
    expect(stops).toEqual(["t1"]);
    tell({ kind: "turn-ended", turnId: "t1", status: "aborted" });
    expect(await sync.stopTurn()).toBe(false);
    expect(stops).toEqual(["t1"]);
  });

  it("reads the conversation again when its history was rewritten", async () => {
    const { chat, server, tell } = setup({ stored: [user("u1"), assistant("a1"), user("u2"), assistant("a2")] });
    await flush();
    server.stored = [user("u1"), assistant("a1"), user("u2-edited")];
    tell({ kind: "history" });
    await flush();
    expect(chat.ids()).toEqual(["u1", "a1", "u2-edited"]);
  });

  it("recovers a chat cut by a disconnect once per open of the event socket", async () => {
    const { chat, sync, server, reconnect } = setup({ stored: [user("u1")] });
    await flush();
    await chat.settleResume();
    chat.status = "error";
    chat.error = new TypeError("WebSocket chat network connection closed (code 1006).");
    sync.chatChanged();
    await flush();
    expect(server.reads).toBe(2);
    expect(chat.resumes).toHaveLength(1);
    await chat.failResume(new TypeError("WebSocket chat network connection failed.")); // the server is still away
    sync.chatChanged();
    await flush();
    expect(server.reads).toBe(2); // not again until the event socket is back
    await reconnect();
    await flush();
    expect(server.reads).toBe(3);
    expect(chat.resumes).toHaveLength(1);
  });

  it("leaves any other chat error alone", async () => {
    const { chat, sync, server } = setup();
    await flush();
    await chat.settleResume();
    chat.status = "error";
    chat.error = new Error("The conversation changed since this page loaded it");
    sync.chatChanged();
    await flush();
    expect(server.reads).toBe(1);
    expect(chat.resumes).toHaveLength(0);
  });

  it("reports a failed first read, and is ready after the next one succeeds", async () => {
    const { chat, sync, server } = setup({ failWith: new Error("HTTP 503") });
    await flush();
    expect(sync.getSnapshot()).toMatchObject({ status: "error", error: "HTTP 503" });
    expect(chat.resumes).toHaveLength(0);
    server.failWith = null;
    await sync.reload();
    expect(sync.getSnapshot()).toMatchObject({ status: "ready", error: null });
    server.failWith = new Error("HTTP 503");
    await sync.reload();
    expect(sync.getSnapshot()).toMatchObject({ status: "ready", error: null });
  });

  it("forgets the turn it heard of when the event socket reconnects (its end may have been missed)", async () => {
    const { chat, sync, tell, reconnect } = setup();
    await flush();
    await chat.settleResume();
    chat.status = "streaming";
    tell({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false });
    expect(sync.getSnapshot().activeTurn?.turnId).toBe("t1");
    await reconnect();
    expect(sync.getSnapshot().activeTurn).toBeNull();
  });

  it("does nothing once closed", async () => {
    const { chat, sync, server, tell } = setup({ stored: [user("u1")] });
    await flush();
    await chat.settleResume();
    sync.close();
    tell({ kind: "message", message: user("u2") });
    tell({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false });
    await sync.reload();
    expect(chat.ids()).toEqual(["u1"]);
    expect(chat.resumes).toHaveLength(0);
    expect(server.reads).toBe(1);
  });
});
