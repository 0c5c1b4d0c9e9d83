// The durable conversation's rules, as data: how a send meets the stored conversation, and how a cut turn goes on.
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { planChatRecovery } from "../src/chat/chat-recovery-plan.js";
import { mergeChatSend } from "../src/chat/merge-chat-send.js";

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

describe("planChatRecovery", () => {
  const step1: UIMessageChunk[] = [
    { type: "start", messageId: "m" },
    { type: "start-step" },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "Let me ask. " },
    { type: "text-end", id: "t1" },
    { type: "tool-input-start", toolCallId: "c1", toolName: "echo" },
    { type: "tool-input-available", toolCallId: "c1", toolName: "echo", input: { text: "hi" } },
  ];

  it("keeps the cut step's decided tool calls and runs them again with their own ids", () => {
    const plan = planChatRecovery(step1);
    expect(plan.keep).toEqual(step1);
    expect(plan.pendingToolCalls).toEqual([{ toolCallId: "c1", toolName: "echo", input: { text: "hi" } }]);
    expect(plan.isStepOpen).toBe(true);
  });

  it("keeps a tool result that came, and drops what was still streaming", () => {
    const cut: UIMessageChunk[] = [
      ...step1,
      { type: "tool-output-available", toolCallId: "c1", output: "hi" },
      { type: "text-start", id: "t2" },
      { type: "text-delta", id: "t2", delta: "Half a sen" },
    ];
    const plan = planChatRecovery(cut);
    expect(plan.keep).toEqual([...step1, { type: "tool-output-available", toolCallId: "c1", output: "hi" }]);
    expect(plan.pendingToolCalls).toEqual([]);
    expect(plan.isStepOpen).toBe(true);
  });

  it("treats a preliminary tool output as no result: the call runs again, and the preliminary value is dropped", () => {
    const cut: UIMessageChunk[] = [
      ...step1,
      { type: "tool-output-available", toolCallId: "c1", output: { status: "running" }, preliminary: true },
    ];
    const plan = planChatRecovery(cut);
    expect(plan.keep).toEqual(step1);
    expect(plan.pendingToolCalls).toEqual([{ toolCallId: "c1", toolName: "echo", input: { text: "hi" } }]);
  });

  it("drops a cut step in which the model decided nothing, keeping the steps before it", () => {
    const finished: UIMessageChunk[] = [
      ...step1,
      { type: "tool-output-available", toolCallId: "c1", output: "hi" },
      { type: "finish-step" },
    ];
    const cut: UIMessageChunk[] = [
      ...finished,
      { type: "start-step" },
      { type: "text-start", id: "t2" },
      { type: "text-delta", id: "t2", delta: "The echo sa" },
    ];
    expect(planChatRecovery(cut)).toEqual({ keep: finished, pendingToolCalls: [], isStepOpen: false });
    expect(planChatRecovery(finished)).toEqual({ keep: finished, pendingToolCalls: [], isStepOpen: false });
  });

  it("keeps only the message's start when the first step was cut before a decision", () => {
    const cut: UIMessageChunk[] = [
      { type: "start", messageId: "m" },
      { type: "start-step" },
      { type: "tool-input-start", toolCallId: "c1", toolName: "echo" },
    ];
    expect(planChatRecovery(cut)).toEqual({
      keep: [{ type: "start", messageId: "m" }],
      pendingToolCalls: [],
      isStepOpen: false,
    });
    expect(planChatRecovery([])).toEqual({ keep: [], pendingToolCalls: [], isStepOpen: false });
  });
});
