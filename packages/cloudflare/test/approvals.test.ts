// Approvals at any depth (issue 25), in workerd: the parent's turn calls `relay` (a Relay child), which relays to a
// Relay grandchild, which calls a Writer great-grandchild whose `write` tool needs approval. The request surfaces on
// the parent's top-level run; workerd is killed before anyone answers; after the restart the request is shown again,
// and approving it resumes that same Writer run — no completed step run again, no run started anew. A denial's reason
// reaches storage and the model without control characters (issue 36).
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { approvalsIn, askUntilApproval, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type RunInfo = { runId: string; agentType: string; status: string };
type Message = { role: string; parts: Array<{ type: string; text?: string }> };

const startHost = hostWorkerPerTest("agent-tools-approvals-");

/** The texts of the parent's last message, once it is an answer (none before). */
async function answerOf(running: MiniflareHost, base: string): Promise<string[]> {
  const last = (await running.fetchJson<Message[]>(`${base}/messages`)).at(-1);
  return last?.role === "assistant"
    ? last.parts.flatMap((part) => (part.type === "text" ? [part.text ?? ""] : []))
    : [];
}

describe("approvals at any depth", () => {
  it("a great-grandchild's request survives a kill, and approving after the restart resumes that same run", async () => {
    const running = await startHost({ PARENT_TOOL: "relay" });
    const base = "/agents/parent/approvals";
    const { events, chat, asked } = await askUntilApproval(running, base, "hello");
    expect(asked).toMatchObject({ toolName: "write", input: { text: "hello" }, status: "pending" });
    // Which run asks: from the top-level Relay's child (a Relay) down to the Writer.
    expect(asked?.path.map((node) => node.agentType)).toEqual(["Relay", "Writer"]);
    const [relay] = await running.fetchJson<RunInfo[]>(`${base}/runs`);
    expect(relay).toMatchObject({ agentType: "Relay", status: "running" });
    const counts = () => running.fetchJson<Record<string, number>>("/probe/counts");
    // Each Relay called its model once (to relay), the Writer once (to ask); nothing was written.
    expect(await counts()).toEqual({ "relay-turn": 2, "relay-model": 2, "writer-turn": 1, "writer-model": 1 });
    events.close();
    chat.close();

    await running.killAndRestart();

    // Shown again: a client connecting after the restart gets the request, still pending.
    const after = await RecordingSocket.open(wsUrl(running, base));
    await after.waitFor((messages) => approvalsIn(messages).length > 0, 30_000);
    const shown = approvalsIn(after.messages);
    expect(shown.at(-1)).toMatchObject({ approvalId: asked?.approvalId, status: "pending" });
    const approve = (body: unknown) =>
      running.fetch(`${base}/approve/${encodeURIComponent(relay?.runId ?? "")}/${asked?.approvalId}`, {
        method: "POST",
        body: JSON.stringify(body),
      });
    expect((await approve({ approved: "yes" })).status).toBe(400);
    const answered = await approve({ approved: true });
    expect(await answered.json()).toEqual({ answered: true });

    await after.waitFor((messages) => approvalsIn(messages).some((approval) => approval.status === "approved"), 30_000);
    await expect
      .poll(async () => (await running.fetchJson<RunInfo[]>(`${base}/runs`))[0]?.status, { timeout: 30_000 })
      .toBe("completed");
    // Answering again changes nothing.
    expect(await (await approve({ approved: false })).json()).toEqual({ answered: false });
    // The parent's turn, cut by the kill, went on too: its answer tells what the write gave.
    await expect
      .poll(() => answerOf(running, base), { timeout: 30_000 })
      .toEqual([expect.stringContaining("wrote hello")]);
    // The Writer: one turn to ask, one that went on after the approval; its model called once per step; one write.
    // The Relays: their turns cut by the kill went on from their logged steps (one more turn each), their models
    // called once per step (twice each) — no step run again.
    expect(await counts()).toEqual({
      "relay-turn": 4,
      "relay-model": 4,
      "writer-turn": 2,
      "writer-model": 2,
      "writer-write": 1,
    });
    // The same runs throughout: still one top-level run.
    expect((await running.fetchJson<RunInfo[]>(`${base}/runs`)).length).toBe(1);
    after.close();
  });

  it("a denial's reason reaches storage and the model without its control characters", async () => {
    const running = await startHost({ PARENT_TOOL: "relay" });
    const base = "/agents/parent/approvals-reason";
    const { events, chat, asked } = await askUntilApproval(running, base, "hello");
    const [relay] = await running.fetchJson<RunInfo[]>(`${base}/runs`);
    // A terminal escape, a NUL, a bell, a line break and a right-to-left override, as a stranger may send them.
    const reason = "\u001b[2JNot\u0000 that\u0007 file,\r\nplease\u202e";
    const answered = await running.fetch(
      `${base}/approve/${encodeURIComponent(relay?.runId ?? "")}/${asked?.approvalId}`,
      {
        method: "POST",
        body: JSON.stringify({ approved: false, reason }),
      },
    );
    expect(await answered.json()).toEqual({ answered: true });
    await events.waitFor((messages) => approvalsIn(messages).some((approval) => approval.status === "denied"), 30_000);
    // Stored (the run's log, replayed to a client that connects now) as the model is told it.
    const later = await RecordingSocket.open(wsUrl(running, base));
    await later.waitFor((messages) => approvalsIn(messages).some((approval) => approval.status === "denied"), 30_000);
    const denied = approvalsIn(later.messages).find((approval) => approval.status === "denied");
    expect(denied?.reason).toBe("[2JNot that file, please");
    // The Writer's model was told the denial with that reason; its answer goes up to the parent's.
    const answer = () => answerOf(running, base);
    await expect.poll(answer, { timeout: 30_000 }).toEqual([expect.stringContaining("[2JNot that file, please")]);
    for (const text of await answer()) expect(text).not.toMatch(/\\u00(00|07|1b)|\\u202e|\\r|\\n/);
    events.close();
    chat.close();
    later.close();
  });

  it("answers 404 for a run that is not the parent's", async () => {
    const running = await startHost();
    const response = await running.fetch("/agents/parent/approvals-404/approve/nope/a1", {
      method: "POST",
      body: JSON.stringify({ approved: true }),
    });
    expect(response.status).toBe(404);
  });
});
