import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { backgroundRunIdOf, chatEntries } from "../web/src/chat-entries.js";

// The demo page's grouping of a conversation into items: what the server tells the chat about a background run is
// one item (issue 18: "a background completion adds one entry, not three").

const RUN = "background:call-4-a7450944";
const message = (id: string, role: UIMessage["role"], source?: string): UIMessage => ({
  id,
  role,
  parts: [{ type: "text", text: id }],
  ...(source ? { metadata: { source } } : {}),
});
const kinds = (messages: UIMessage[]) =>
  chatEntries(messages).map((entry) => (entry.kind === "message" ? entry.message.id : `bg:${entry.runId}`));

describe("backgroundRunIdOf", () => {
  it("reads the run of a completion or a milestone the server added, and nothing else", () => {
    expect(backgroundRunIdOf(message(`agent-tool:detached:${RUN}:completed`, "user", "background-import"))).toBe(RUN);
    expect(backgroundRunIdOf(message(`agent-tool:detached:${RUN}:milestone:half-way`, "assistant", "x"))).toBe(RUN);
    expect(backgroundRunIdOf(message(`agent-tool:detached:${RUN}:completed`, "user"))).toBeNull(); // no source
    expect(backgroundRunIdOf(message("agent-tool:detached:r1:unknown", "user", "x"))).toBeNull();
    expect(backgroundRunIdOf(message("u1", "user", "x"))).toBeNull();
  });
});

describe("chatEntries", () => {
  it("makes a background run's milestone, completion and the answer to it one item", () => {
    const messages = [
      message("u1", "user"),
      message("a1", "assistant"),
      message(`agent-tool:detached:${RUN}:milestone:half-way`, "assistant", "agent-tool:detached"),
      message(`agent-tool:detached:${RUN}:completed`, "user", "background-import"),
      message("a2", "assistant", "assistant:server-turn"),
      message("u2", "user"),
    ];
    expect(kinds(messages)).toEqual(["u1", "a1", `bg:${RUN}`, "u2"]);
    const entry = chatEntries(messages)[2];
    expect(entry?.kind === "background" && entry.notices.map((notice) => notice.id)).toEqual([
      `agent-tool:detached:${RUN}:milestone:half-way`,
      `agent-tool:detached:${RUN}:completed`,
    ]);
    expect(entry?.kind === "background" && entry.reply?.id).toBe("a2");
  });

  it("leaves an assistant message alone when no completion came right before it", () => {
    const messages = [
      message(`agent-tool:detached:${RUN}:milestone:half-way`, "assistant", "agent-tool:detached"),
      message("a1", "assistant"),
      message(`agent-tool:detached:${RUN}:completed`, "user", "background-import"),
    ];
    expect(kinds(messages)).toEqual([`bg:${RUN}`, "a1", `bg:${RUN}`]);
  });

  it("keeps two runs apart", () => {
    const other = "background:call-9";
    const messages = [
      message(`agent-tool:detached:${RUN}:completed`, "user", "s"),
      message(`agent-tool:detached:${other}:completed`, "user", "s"),
      message("a", "assistant"),
    ];
    expect(kinds(messages)).toEqual([`bg:${RUN}`, `bg:${other}`]);
  });
});
