// The durable conversation's rules, as data: how a send meets the stored conversation (how a cut turn goes on is
// core-runs' planTurnRecovery, tested there).
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { mergeChatSend } from "./merge-chat-send.js";

const message = (id: string, role: UIMessage["role"], text = id): UIMessage => ({
  id,
  role,
  parts: [{ type: "text", text }],
});
const [u1, a1, u2, a2] = [
  message("u1", "user"),
  message("a1", "assistant"),
  message("u2", "user"),
  message("a2", "assistant"),
];
const stored = [u1, a1, u2, a2];

describe("mergeChatSend", () => {
  it("appends a new user message to the stored conversation, whatever the client held", () => {
    const fresh = message("u3", "user", "next");
    expect(
      mergeChatSend(stored, { trigger: "submit-message", messageId: undefined, messages: [...stored, fresh] }),
    ).toEqual({ kind: "append", userMessage: fresh });
    // A stale tab (it missed u2 and a2) loses nothing: its message goes after what is stored.
    expect(
      mergeChatSend(stored, {
        trigger: "submit-message",
        messageId: undefined,
        messages: [u1, a1, fresh],
      }),
    ).toEqual({ kind: "append", userMessage: fresh });
  });

  it("never runs a resent message twice", () => {
    expect(
      mergeChatSend(stored, { trigger: "submit-message", messageId: undefined, messages: stored.slice(0, 3) }),
    ).toEqual({ kind: "duplicate", messageId: "u2" });
  });

  it("regenerates only for a client that holds the stored conversation up to the answer it drops", () => {
    expect(
      mergeChatSend(stored, { trigger: "regenerate-message", messageId: undefined, messages: stored.slice(0, 3) }),
    ).toEqual({ kind: "replace", keep: stored.slice(0, 3), userMessage: null });
    // A stale tab would drop u2 and a2, which it never saw.
    expect(
      mergeChatSend(stored, { trigger: "regenerate-message", messageId: undefined, messages: stored.slice(0, 1) }).kind,
    ).toBe("refuse");
  });

  it("takes a retry (regenerate) of a user message the server never stored as that message's send", () => {
    // The send was cut off (a crash before the message was stored); the AI SDK's retry regenerates from it.
    const unsent = message("u3", "user", "cut off");
    expect(
      mergeChatSend(stored, { trigger: "regenerate-message", messageId: undefined, messages: [...stored, unsent] }),
    ).toEqual({ kind: "append", userMessage: unsent });
    expect(mergeChatSend([], { trigger: "regenerate-message", messageId: undefined, messages: [unsent] })).toEqual({
      kind: "append",
      userMessage: unsent,
    });
    // Only from a client that holds everything stored: a stale tab's would skip what it has not seen.
    expect(
      mergeChatSend(stored, { trigger: "regenerate-message", messageId: undefined, messages: [u1, a1, unsent] }).kind,
    ).toBe("refuse");
  });

  it("edits only the last user message, for a client that holds the history before it", () => {
    const edited = message("ignored", "user", "u2, edited");
    expect(
      mergeChatSend(stored, { trigger: "submit-message", messageId: "u2", messages: [...stored.slice(0, 2), edited] }),
    ).toEqual({ kind: "replace", keep: stored.slice(0, 2), userMessage: { ...edited, id: "u2" } });
    expect(
      mergeChatSend(stored, { trigger: "submit-message", messageId: "u1", messages: [message("x", "user")] }).kind,
    ).toBe("refuse");
    expect(mergeChatSend(stored, { trigger: "submit-message", messageId: "u2", messages: [u1, edited] }).kind).toBe(
      "refuse",
    );
  });

  it("refuses a send that does not end with a user message", () => {
    expect(mergeChatSend(stored, { trigger: "submit-message", messageId: undefined, messages: stored }).kind).toBe(
      "refuse",
    );
  });
});
