import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AiSdkChat } from "../harness/ai-sdk-chat.js";
import { demoWsUrl, startDemoHost } from "../harness/demo.js";
import { base, listMessages, waitForFault } from "./kill-observe.js";
import {
  armFault,
  BINDINGS,
  killAtTurnPoint,
  observeTurn,
  runReference,
  type TurnKill,
  type TurnOutcome,
  USER_TEXT,
} from "./kill-scenarios.js";

// Issue 17: the parent's chat turn survives a crash. The runtime is killed (SIGKILL of workerd, MiniflareHost.kill)
// at each step of a turn of "import the data" (the Assistant's text, then its `importData` tool, an awaited Importer
// run, then its answer), held there by a fault point of the demo (src/agents/fault-points.ts), then started again
// on the same storage. After the restart the conversation must hold the user message once, the tool call once and
// an answer (resumed, or marked interrupted), with no error for the client; the child run must be terminal, its log
// gap-free, its hooks called once; and a fresh client's replay of it must equal an uninterrupted run's text.
// One kill per point here; `pnpm --filter @agent-tools/demo kill-matrix` repeats them and counts (README.md).

let persist: PersistDirectory;
let host: MiniflareHost;
/** The uninterrupted run of the same turn, to compare with. */
let reference: TurnOutcome;

/** The assertions every fault point shares (the child's replayed text is checked in a test of its own). */
function expectRecovered({ outcome, userMessageId, partialId }: TurnKill) {
  const { conversation, resume, importerRuns, replay, hooks } = outcome;
  // The user message once, with the id the client gave it.
  expect(conversation.userMessageIds).toEqual([userMessageId]);
  // The tool call once, with its result; its run is the one child run, bound to it.
  expect(conversation.toolCalls).toEqual([
    { toolCallId: expect.any(String), toolName: "importData", state: "output-available" },
  ]);
  expect(importerRuns.map((run) => run.runId)).toEqual([`agent-tool:${conversation.toolCalls[0]?.toolCallId}`]);
  // An answer: resumed (the model's, as in the uninterrupted run) or marked interrupted; never silently lost.
  expect(["resumed", "interrupted"]).toContain(conversation.answer);
  if (conversation.answer === "resumed") expect(conversation.answerText).toBe(reference.conversation.answerText);
  // The answer the client had begun to receive is the one stored whole (same id), not a second one beside it.
  if (partialId !== null) expect(conversation.answerId).toBe(partialId);
  // No error left for the client; a resumed stream (when the turn was still in flight) ends with the stored answer.
  expect(resume.error).toBeNull();
  if (resume.kind === "replayed") {
    expect(resume.messageId).toBe(conversation.answerId);
    expect(resume.text).toBe(conversation.answerText);
  }
  // Every child run terminal, its log gap-free with no conflicting sequence, its hooks called once.
  expect(outcome.runs.map((run) => run.status)).toEqual(outcome.runs.map(() => "completed"));
  expect(replay).toMatchObject({ gapFree: true, conflicts: 0, terminal: "finished" });
  expect(hooks).toEqual({ runId: importerRuns[0]?.runId, start: 1, finish: { completed: 1 } });
  // The child ran one fresh turn (a turn cut by the kill is resumed, not started again).
  expect(outcome.childTurns?.turns).toBe(1);
}

beforeAll(async () => {
  persist = await createPersistDirectory("agent-tools-kill-turn-");
  host = await startDemoHost(persist, BINDINGS);
  reference = await runReference(host);
  expect(reference.conversation.answer).toBe("resumed");
  expect(reference.replay?.text).toMatch(/^Schema checked\. Imported batch 1 of 5\. .*Imported batch 5 of 5\. $/);
});

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
});

describe("killed before the user message is stored", () => {
  let kill: TurnKill;

  it("stores nothing of the cut send; the client's resend (same message id) is answered once", async () => {
    kill = await killAtTurnPoint(host, "before-user-message", "kill-before-user");
    expect(kill.reached).toEqual({ point: "before-user-message", detail: { messageId: kill.userMessageId } });
    expect(kill.stage).toBe("before any answer");
    expectRecovered(kill);
    expect(kill.outcome.conversation.answer).toBe("resumed");
  });

  it("a fresh client's replay of the child run equals the uninterrupted run's text", () => {
    expect(kill.outcome.replay?.text).toBe(reference.replay?.text);
  });

  it("the AI SDK chat's retry (regenerate) of the cut send is taken as that send, and answered once", async () => {
    const chatId = "kill-before-user-retry";
    await armFault(host, "before-user-message");
    const chat = new AiSdkChat(() => demoWsUrl(host, `${base(chatId)}/chat`), chatId);
    const sending = chat.sendMessage({ text: USER_TEXT });
    await waitForFault(host, chatId);
    await host.killAndRestart(BINDINGS);
    await sending;
    // The send failed with the connection: the message is on the page only.
    expect(chat.status).toBe("error");
    const userMessageId = chat.messages[0]?.id;
    expect(await listMessages(host, chatId)).toEqual([]);

    // The page's Retry (`regenerate()`, as the AI SDK documents it) sends it again.
    await chat.regenerate();
    expect(chat.status).toBe("ready");
    const outcome = await observeTurn(host, chatId);
    expect(outcome.conversation.userMessageIds).toEqual([userMessageId]);
    expect(outcome.conversation.toolCalls).toHaveLength(1);
    expect(outcome.conversation.answerText).toBe(reference.conversation.answerText);
    // The page shows what is stored: the user message, then the answer.
    expect(chat.messages.map((message) => message.id)).toEqual([userMessageId, outcome.conversation.answerId]);
    chat.close();
  });
});

describe("killed while the parent model streams (part of its text sent)", () => {
  let kill: TurnKill;

  it("resumes the turn: the cut step is done again, the client's partial answer is the one that finishes", async () => {
    kill = await killAtTurnPoint(host, "parent-streaming", "kill-parent-streaming");
    expect(kill.stage).toBe("parent streaming");
    expect(kill.partialId).toEqual(expect.any(String));
    expectRecovered(kill);
  });

  it("a fresh client's replay of the child run equals the uninterrupted run's text", () => {
    expect(kill.outcome.replay?.text).toBe(reference.replay?.text);
  });
});

describe("killed while the awaited child streams (its text partly in its log)", () => {
  let kill: TurnKill;

  it("re-attaches to the child run (the tool call runs again with its id), which finishes; the turn answers", async () => {
    kill = await killAtTurnPoint(host, "child-streaming", "kill-child-streaming");
    expect(kill.stage).toBe("child streaming");
    expectRecovered(kill);
    expect(kill.outcome.childTurns?.resumedTurns).toBe(1);
  });

  // The cut step's text stays in the child's log; the resumed turn voids it with a step reset, so the replay holds
  // the text once.
  it("a fresh client's replay of the child run equals the uninterrupted run's text", () => {
    expect(kill.outcome.replay?.text).toBe(reference.replay?.text);
  });
});

describe("killed between the tool result and the parent's answer", () => {
  let kill: TurnKill;

  it("goes on from the stored tool result: the child is not run again, the model answers", async () => {
    kill = await killAtTurnPoint(host, "after-tool-result", "kill-after-tool-result");
    // The tool result is stored (the fault point waits for the write that holds it); the answer is not.
    expect(kill.reached?.detail["stored"]).toContain("tool-output-available");
    expect(kill.stage).toBe("after the tool result");
    expectRecovered(kill);
    expect(kill.outcome.childTurns).toEqual({ turns: 1, resumedTurns: 0 });
  });

  it("a fresh client's replay of the child run equals the uninterrupted run's text", () => {
    expect(kill.outcome.replay?.text).toBe(reference.replay?.text);
  });
});
