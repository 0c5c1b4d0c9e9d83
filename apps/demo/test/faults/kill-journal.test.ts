// Issue 32 in workerd: the runtime killed (SIGKILL of workerd, MiniflareHost.kill) at the points the issue names, then
// started again on the same storage, without any test knob:
// - right after the approve POST returns (the Writer's turn going on, held in its next step): the answer stays, the
//   file is saved once, the run completes and the answer says so — never "failed" beside "Approved";
// - while the approval waits: after the restart the request is in the top run's log once (not re-published), and
//   answering it then saves the file;
// - between two tool calls of one step (the Assistant decided `research`, `summarize`'s input still streaming): the
//   resumed turn runs `research` and tells its model `summarize` was not run — no announced call silently dropped.
import type { AgentToolApproval } from "@agent-tools/core-runs/protocol";
import { readApprovalChunk } from "@agent-tools/core-runs/protocol";
import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import type { UIMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFrames, demoWsUrl, releaseHold, startDemoHost } from "../harness/demo.js";
import { base, listMessages, listRuns, openEvents, readUntil, sendChat, waitForFault } from "./kill-observe.js";
import { armFault } from "./kill-scenarios.js";

const WRITE = "write this down: buy milk";
const PACED: Record<string, string> = { DEMO_PACE_MS: "0" };

let persist: PersistDirectory;
let host: MiniflareHost;

beforeAll(async () => {
  persist = await createPersistDirectory("agent-tools-kill-journal-");
  host = await startDemoHost(persist, PACED);
});

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
});

/** The approval chunks the events socket got (replayed or live), in order. */
const approvalsIn = (messages: unknown[]): AgentToolApproval[] =>
  agentFrames(messages).flatMap((frame) => {
    const approval = frame.event.kind === "chunk" ? readApprovalChunk(frame.event.body) : null;
    return approval ? [approval] : [];
  });

/** A fresh client's replay of the chat's runs: its approval chunks (each in its latest state), once settled. */
async function replayedApprovals(chatId: string): Promise<AgentToolApproval[]> {
  // A paged replay ends with its page frame: everything before it is the replay.
  const events = await RecordingSocket.open(demoWsUrl(host, `${base(chatId)}?agentToolPage=50`));
  try {
    await events.waitFor((messages) =>
      messages.some((message) => (message as { type?: string }).type === "agent-tool-page"),
    );
    return approvalsIn(events.messages);
  } finally {
    events.close();
  }
}

/** The toolCallId of the Editor's `write` call, once its log (at the top) holds it. */
const writeCallIn = (messages: unknown[]): string | undefined => {
  for (const frame of agentFrames(messages)) {
    if (frame.event.kind !== "chunk") continue;
    const body = frame.event.body as { toolName?: string; toolCallId?: string };
    if (body.toolName === "write" && body.toolCallId !== undefined) return body.toolCallId;
  }
  return undefined;
};

const approve = (chatId: string, runId: string, approvalId: string) =>
  host.fetchJson<{ answered: boolean }>(
    `${base(chatId)}/approve/${encodeURIComponent(runId)}/${encodeURIComponent(approvalId)}`,
    { method: "POST", body: { approved: true } },
  );

/** Ask to write; resolves the events socket once the Writer's request reached the top, with the Editor's run id. */
async function askToWrite(chatId: string, events: RecordingSocket) {
  const chat = await sendChat(host, chatId, WRITE, { requestId: `r-${chatId}`, userMessageId: `u-${chatId}` });
  await events.waitFor((messages) => approvalsIn(messages).some((approval) => approval.status === "pending"));
  const [editor] = await listRuns(host, chatId);
  const asked = approvalsIn(events.messages).find((approval) => approval.status === "pending");
  return { chat, editorRunId: editor?.runId ?? "", asked: asked as AgentToolApproval };
}

/** The stored answer's text, once the turn ended (its assistant message is stored). */
async function storedAnswer(chatId: string): Promise<UIMessage | undefined> {
  const messages = await readUntil(
    () => listMessages(host, chatId),
    (stored) => stored.at(-1)?.role === "assistant",
    60_000,
  );
  return messages.at(-1);
}
const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ");

describe("killed right after the approve POST returns", () => {
  it("keeps the answer: the file is saved once, the Writer's run completes, the answer says it was saved", async () => {
    const chatId = "kill-after-approve";
    // The Writer holds at the first text delta of each of its turns: its first (before it asks) is released below;
    // its second (the step after the save, once approved) holds while the runtime is killed.
    await host.restart({ ...PACED, DEMO_HOLD_AFTER: "Writer:1" });
    const events = await openEvents(host, chatId);
    const chat = await sendChat(host, chatId, WRITE, { requestId: `r-${chatId}`, userMessageId: `u-${chatId}` });
    // The Editor's `write` call names the Writer's run (`agent-tool:<toolCallId>`).
    await events.waitFor((messages) => writeCallIn(messages) !== undefined);
    const writerRunId = `agent-tool:${writeCallIn(events.messages)}`;
    await releaseHold(host, writerRunId);
    await events.waitFor((messages) => approvalsIn(messages).some((approval) => approval.status === "pending"));
    const [editor] = await listRuns(host, chatId);
    const asked = approvalsIn(events.messages).find((approval) => approval.status === "pending");
    expect(await approve(chatId, editor?.runId ?? "", asked?.approvalId ?? "")).toEqual({ answered: true });
    events.close();
    chat.close();
    await host.killAndRestart(PACED);

    const after = await openEvents(host, chatId);
    const answer = await storedAnswer(chatId);
    after.close();
    expect(textOf(answer)).toContain("Saved notes.md (8 bytes)");
    expect(textOf(answer)).not.toContain("failed");
    expect((await listRuns(host, chatId)).map((run) => run.status)).toEqual(["completed"]);
    // Asked once, answered once, in the top run's log.
    expect((await replayedApprovals(chatId)).map((approval) => approval.status)).toEqual(["approved", "approved"]);
  }, 120_000);
});

describe("killed while the approval waits", () => {
  it("keeps the request once in the top run's log; answered after the restart, the file is saved", async () => {
    const chatId = "kill-while-pending";
    await host.restart(PACED);
    const events = await openEvents(host, chatId);
    const { chat, editorRunId, asked } = await askToWrite(chatId, events);
    events.close();
    chat.close();
    await host.killAndRestart(PACED);

    // The Editor is woken again (the Assistant's turn goes on and re-attaches to it), and its Writer still waits.
    const after = await openEvents(host, chatId);
    await readUntil(
      () => listRuns(host, chatId),
      (runs) => runs[0]?.status === "running",
    );
    // The request once: not published again by the Editor, which followed its Writer again after the restart.
    expect((await replayedApprovals(chatId)).map((approval) => approval.status)).toEqual(["pending"]);
    expect(await approve(chatId, editorRunId, asked.approvalId)).toEqual({ answered: true });
    const answer = await storedAnswer(chatId);
    after.close();
    expect(textOf(answer)).toContain("Saved notes.md (8 bytes)");
    expect((await replayedApprovals(chatId)).map((approval) => approval.status)).toEqual(["approved", "approved"]);
  }, 120_000);
});

describe("killed between two tool calls of one step", () => {
  it("runs the decided call and tells the model the other was not run: both calls are in the answer", async () => {
    const chatId = "kill-between-calls";
    await armFault(host, "between-tool-calls", PACED);
    const events = await openEvents(host, chatId);
    const chat = await sendChat(host, chatId, "research cats", {
      requestId: `r-${chatId}`,
      userMessageId: `u-${chatId}`,
    });
    const reached = await waitForFault(host, chatId);
    expect(reached.detail["stored"]).toContain("tool-input-delta");
    events.close();
    chat.close();
    await host.killAndRestart(PACED);

    const after = await openEvents(host, chatId);
    const answer = await storedAnswer(chatId);
    after.close();
    const calls = (answer?.parts ?? []).filter((part) => part.type.startsWith("tool-"));
    expect(calls).toMatchObject([
      { type: "tool-research", state: "output-available" },
      { type: "tool-summarize", state: "output-error" },
    ]);
    expect(JSON.stringify(calls[1])).toContain("was not run");
    expect(textOf(answer)).toContain("Research:");
  }, 120_000);
});
