// The demo's approval prompt, in workerd: "write …" has the Assistant's Editor child hand the text to its Writer
// grandchild, whose `saveFile` needs approval. The request shows on the Editor's run (the top-level card) with the
// Writer as who asks; approving saves the file and the answer says so; Stop while it waits ends the Writer, then the
// Editor, with the Stop's reason; and every card's run reports its usage.
import type { AgentToolApproval, AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { agentFrames, chatSendRequest, demoHostSuite, demoWsUrl } from "./harness/demo.js";

type RunInfo = { runId: string; agentType: string; status: string; error?: string; usage?: { outputTokens: number } };
type Message = { role: string; parts: Array<{ type: string; text?: string }> };

const approvalsIn = (messages: unknown[]): AgentToolApproval[] =>
  agentFrames(messages).flatMap((frame: AgentToolEventFrame) => {
    if (frame.event.kind !== "chunk") return [];
    const body = frame.event.body as { type: string; data?: AgentToolApproval };
    return body.type === "data-agent-approval" && body.data ? [body.data] : [];
  });

describe("the demo's approval prompt", () => {
  const { host } = demoHostSuite({ DEMO_PACE_MS: "0" });

  /** Send `text` in conversation `chatId`; resolves the events socket once the Writer's request reached it. */
  async function askToWrite(chatId: string, text: string) {
    const events = await RecordingSocket.open(demoWsUrl(host, `/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(demoWsUrl(host, `/agents/assistant/${chatId}/chat`));
    chat.send(chatSendRequest(text, chatId, "request-1", `user-${chatId}`));
    await events.waitFor((messages) => approvalsIn(messages).length > 0);
    const [editor] = await host.fetchJson<RunInfo[]>(`/agents/assistant/${chatId}/runs`);
    return { events, chat, editor, asked: approvalsIn(events.messages)[0] };
  }

  it("asks on the Editor's card for the Writer's save; approved, the file is saved and the answer says so", async () => {
    const { events, chat, editor, asked } = await askToWrite("approving", "write this down: buy   milk");
    expect(editor).toMatchObject({ agentType: "Editor", status: "running" });
    expect(asked).toMatchObject({
      toolName: "saveFile",
      input: { path: "notes.md", content: "buy milk" },
      status: "pending",
      path: [{ agentType: "Writer" }],
    });
    const answered = await host.fetchJson(
      `/agents/assistant/approving/approve/${encodeURIComponent(editor?.runId ?? "")}/${asked?.approvalId}`,
      { method: "POST", body: { approved: true } },
    );
    expect(answered).toEqual({ answered: true });
    await expect
      .poll(async () => (await host.fetchJson<RunInfo[]>("/agents/assistant/approving/runs"))[0]?.status)
      .toBe("completed");
    const answer = async () => {
      const last = (await host.fetchJson<Message[]>("/agents/assistant/approving/messages")).at(-1);
      return last?.role === "assistant" ? last.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])) : [];
    };
    await expect.poll(answer).toEqual(expect.arrayContaining([expect.stringContaining("Saved notes.md (8 bytes)")]));
    // The card's run reports what its tree spent (the scripted models report estimated tokens).
    const [finished] = await host.fetchJson<RunInfo[]>("/agents/assistant/approving/runs");
    expect(finished?.usage?.outputTokens).toBeGreaterThan(0);
    events.close();
    chat.close();
  });

  it("a turn cut by a kill while the Writer waits, resumed and approved, spent what the same turn never cut spends", async () => {
    type ChatEvent = { type: string; event?: { kind: string; usage?: { inputTokens: number; outputTokens: number } } };
    /** Ask, maybe kill workerd while the request waits, approve; resolves the turn's usage on its `turn-ended`. */
    async function turnUsage(chatId: string, kill: boolean) {
      const { events, chat, editor, asked } = await askToWrite(chatId, "write this down: buy   milk");
      events.close();
      chat.close();
      if (kill) await host.killAndRestart();
      const after = await RecordingSocket.open(demoWsUrl(host, `/agents/assistant/${chatId}`));
      const answered = await host.fetchJson(
        `/agents/assistant/${chatId}/approve/${encodeURIComponent(editor?.runId ?? "")}/${asked?.approvalId}`,
        { method: "POST", body: { approved: true } },
      );
      expect(answered).toEqual({ answered: true });
      const ended = (messages: unknown[]) =>
        (messages as ChatEvent[]).find(
          (frame) => frame.type === "agent-chat-event" && frame.event?.kind === "turn-ended",
        )?.event;
      await after.waitFor((messages) => ended(messages) !== undefined);
      after.close();
      return ended(after.messages)?.usage;
    }
    const uncut = await turnUsage("uncut", false);
    expect(uncut?.inputTokens).toBeGreaterThan(0);
    // The turn's own model calls before the kill are counted too (a restart never resets the turn's budget).
    expect(await turnUsage("killed", true)).toEqual(uncut);
  });

  it("Stop while the Writer waits ends the tree: the Editor aborted, the Writer's request closed as denied with the reason", async () => {
    const { events, chat, editor } = await askToWrite("stopping", "save this: a long note");
    const turnId = (events.messages as Array<{ type: string; event?: { kind: string; turnId?: string } }>).find(
      (frame) => frame.type === "agent-chat-event" && frame.event?.kind === "turn-started",
    )?.event?.turnId;
    expect(await host.fetchJson(`/agents/assistant/stopping/chat/stop/${turnId}`, { method: "POST" })).toEqual({
      stopped: true,
    });
    await expect
      .poll(async () => (await host.fetchJson<RunInfo[]>("/agents/assistant/stopping/runs"))[0])
      .toMatchObject({ runId: editor?.runId, status: "aborted" });
    await events.waitFor((messages) => approvalsIn(messages).some((approval) => approval.status === "denied"));
    expect(approvalsIn(events.messages).at(-1)).toMatchObject({ status: "denied", reason: "Stopped by the user" });
    events.close();
    chat.close();
  });
});
