// Approvals at any depth (issue 25), in workerd: the parent's turn calls `relay` (a Relay child), which relays to a
// Relay grandchild, which calls a Writer great-grandchild whose `write` tool needs approval. The request surfaces on
// the parent's top-level run; workerd is killed before anyone answers; after the restart the request is shown again,
// and approving it resumes that same Writer run — no completed step run again, no run started anew.
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { approvalsIn, askUntilApproval, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type RunInfo = { runId: string; agentType: string; status: string };
type Message = { role: string; parts: Array<{ type: string; text?: string }> };

const startHost = hostWorkerPerTest("agent-tools-approvals-");

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
    const answer = async () => {
      const last = (await running.fetchJson<Message[]>(`${base}/messages`)).at(-1);
      return last?.role === "assistant" ? last.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])) : [];
    };
    await expect.poll(answer, { timeout: 30_000 }).toEqual([expect.stringContaining("wrote hello")]);
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

  it("answers 404 for a run that is not the parent's", async () => {
    const running = await startHost();
    const response = await running.fetch("/agents/parent/approvals-404/approve/nope/a1", {
      method: "POST",
      body: JSON.stringify({ approved: true }),
    });
    expect(response.status).toBe(404);
  });
});
