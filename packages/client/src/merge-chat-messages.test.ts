import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { mergeStoredConversation, upsertChatMessage } from "./merge-chat-messages.js";

const message = (id: string, text = id): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const ids = (messages: readonly UIMessage[]) => messages.map((each) => each.id);

describe("upsertChatMessage", () => {
  it("adds a new message at the end, replaces one by id in place, and keeps the array when nothing changes", () => {
    const conversation = [message("a"), message("b")];
    expect(ids(upsertChatMessage(conversation, message("c")))).toEqual(["a", "b", "c"]);
    const replaced = upsertChatMessage(conversation, message("a", "edited"));
    expect(replaced).toEqual([message("a", "edited"), message("b")]);
    expect(upsertChatMessage(conversation, message("b"))).toBe(conversation);
  });
});

describe("mergeStoredConversation", () => {
  it("takes the stored conversation, in the server's order, over a stale copy", () => {
    const local = [message("u1"), message("a1", "partial")];
    const stored = [message("u1"), message("other"), message("a1", "whole")];
    expect(mergeStoredConversation(stored, local, { keepUnsent: false })).toEqual(stored);
  });

  it("keeps what comes after the last stored message while a reply streams or a send failed", () => {
    const local = [message("u1"), message("mine"), message("reply")];
    const stored = [message("u1"), message("other"), message("mine")];
    expect(ids(mergeStoredConversation(stored, local, { keepUnsent: true }))).toEqual(["u1", "other", "mine", "reply"]);
    expect(ids(mergeStoredConversation([message("u1")], local, { keepUnsent: true }))).toEqual(["u1", "mine", "reply"]);
  });

  it("drops what the server no longer has (a rewritten history) when nothing is unsent", () => {
    const local = [message("u1"), message("u2"), message("a2")];
    expect(ids(mergeStoredConversation([message("u1"), message("u2b")], local, { keepUnsent: false }))).toEqual([
      "u1",
      "u2b",
    ]);
  });

  it("keeps the messages `keep` names wherever they are, after the stored ones", () => {
    const local = [message("u1"), message("lost"), message("u2"), message("a2")];
    const stored = [message("u1"), message("u2"), message("a2")];
    const keep = (id: string) => id === "lost";
    expect(ids(mergeStoredConversation(stored, local, { keepUnsent: false, keep }))).toEqual([
      "u1",
      "u2",
      "a2",
      "lost",
    ]);
  });

  it("returns the chat's own array when the stored conversation holds the same", () => {
    const local = [message("u1"), message("a1")];
    expect(mergeStoredConversation(structuredClone(local), local, { keepUnsent: false })).toBe(local);
  });
});
