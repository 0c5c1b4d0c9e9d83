// The conversation engine in Node, on the in-memory store and a manual clock: a turn's path, Stop with tools running,
// the send queue, size limits, storage failures, and start-up recovery.
import { AgentToolsError, WRAP_UP_INSTRUCTION } from "@agent-tools/core-runs";
import { AGENT_USAGE_PART, readOwnUsage, readUsageChunk } from "@agent-tools/core-runs/protocol";
import { textStep, toolCallsStep, toolResultsSeen, withUsage } from "@agent-tools/core-runs/testing";
import { convertToModelMessages, tool, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { INTERRUPTED_TURN_TEXT, UNSTORED_TURN_TEXT } from "./chat-engine.js";
import { ChatLimitError } from "./chat-limits.js";
import { handleChatRequest, TOO_MANY_RESUMES_TEXT } from "./chat-requests.js";
import {
  deferred,
  frameTypes,
  peer,
  sendFrame,
  setUpEngine,
  textOf,
  userMessage,
} from "./engine-harness.test-utils.js";
import { RequestBudget } from "./request-budget.js";
import { makeStoredTurn } from "./testing/chat-store-contract-cases.js";
import { InMemoryChatStore } from "./testing/in-memory-chat-store.js";
import { STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT } from "./unfinished-tool-calls.js";

type ToolPart = { type: string; toolCallId: string; state: string; errorText?: string; output?: unknown };
const toolParts = (message: UIMessage | null | undefined) =>
  (message?.parts ?? []).filter((part) => part.type.startsWith("tool-")) as unknown as ToolPart[];

/** A tool that starts, tells the test, and waits until the turn is stopped. */
function blockingTool() {
  const started = deferred();
  let runs = 0;
  const slow = tool({
    description: "Works until stopped",
    inputSchema: z.object({ topic: z.string() }),
    execute: async (_input, { abortSignal }) => {
      runs += 1;
      started.resolve();
      await new Promise((_resolve, reject) => {
        abortSignal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      });
      return "never";
    },
  });
  return { slow, started: started.promise, runs: () => runs };
}

describe("a turn", () => {
  it("stores the user message at once, streams to its sender, stores the answer and tells every client", async () => {
    const { engine, store, announced, script } = setUpEngine();
    script([textStep(() => "hello there")]);
    const tab = peer("tab");
    const answer = await engine.send({ peer: tab, requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "hi"),
    }));

    expect(textOf(answer)).toBe("hello there");
    expect((await store.messages()).map((message) => message.id)).toEqual(["u1", answer?.id]);
    expect(await store.turns()).toEqual([]);
    expect(frameTypes(tab, "r1")[0]).toBe("start");
    expect(frameTypes(tab, "r1").at(-1)).toBe("end");
    expect(announced.map((event) => event.kind)).toEqual(["message", "turn-started", "turn-ended"]);
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", status: "completed" });
  });

  it("lets the turn wait until what its stream gave so far is stored (context.whenStored), within a write interval", async () => {
    const storedWhenAsked: string[][] = [];
    const { engine, store, clock } = setUpEngine({
      stream: (context) =>
        (async function* (): AsyncGenerator<UIMessageChunk> {
          yield { type: "start" };
          yield { type: "text-start", id: "t" };
          yield { type: "text-delta", id: "t", delta: "stored " };
          yield { type: "text-delta", id: "t", delta: "at once" };
          // The clock has not moved: the chunks after the first wait for the next write, unless asked for (streaming
          // output: a fact of the journal, such as a tool's result, is written at once anyway).
          storedWhenAsked.push((await store.turnChunks(context.turnId)).map((chunk) => chunk.type));
          await context.whenStored();
          storedWhenAsked.push((await store.turnChunks(context.turnId)).map((chunk) => chunk.type));
          yield { type: "text-end", id: "t" };
          yield { type: "finish" };
        })(),
    });
    const start = clock.now();
    await engine.sendMessage(userMessage("u1", "hi"));
    expect(clock.now()).toBe(start);
    expect(storedWhenAsked).toEqual([["start"], ["start", "text-start", "text-delta", "text-delta"]]);
  });

  it("stores what the turn's tree spent with its answer, the turn's own share included, for a reload or a later tab", async () => {
    const { engine, store, announced, script } = setUpEngine({ metered: true });
    script([
      withUsage(
        textStep(() => "hello there"),
        12,
        4,
      ),
    ]);
    const answer = await engine.send({ peer: peer("tab"), requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "hi"),
    }));

    const stored = (await store.messages()).at(-1);
    const usage = stored?.parts.find((part) => part.type === AGENT_USAGE_PART);
    const spent = {
      inputTokens: 12,
      outputTokens: 4,
      runs: 0,
      models: [{ provider: "mock-provider", model: "mock-model-id", inputTokens: 12, outputTokens: 4 }],
    };
    expect(readUsageChunk(usage)).toEqual(spent);
    expect(readOwnUsage(usage)).toEqual(spent);
    expect(textOf(stored)).toBe("hello there");
    // What every tab is told at the end is the answer as stored, usage included.
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", message: stored });
    expect(answer).toEqual(stored);
    // It is not conversation: the next model call does not see it.
    const modelMessages = await convertToModelMessages(await store.messages());
    expect(JSON.stringify(modelMessages)).not.toContain(AGENT_USAGE_PART);
  });
});

describe("Stop while a tool runs", () => {
  it("closes the unfinished tool call as stopped, for every tab and in storage, and the next send works", async () => {
    const { slow, started } = blockingTool();
    const { engine, store, announced, script, turns } = setUpEngine({ tools: { slow } });
    script(
      [toolCallsStep("slow", [["call-1", { topic: "cats" }]]), textStep(() => "unreached")],
      [
        textStep((call) => {
          const seen = toolResultsSeen(call).get("call-1") as { type?: string; value?: unknown } | undefined;
          return `saw ${seen?.type}: ${String(seen?.value)}`;
        }),
      ],
    );
    const sender = peer("sender");
    const follower = peer("follower");
    const first = engine.send({ peer: sender, requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "research cats"),
    }));
    await started;
    engine.resume({ peer: follower, requestId: "resume-1" });
    const turnId = engine.activeTurnId as string;
    expect(engine.stop(turnId)).toBe(true);
    expect(engine.stop(turnId)).toBe(false);
    const stopped = await first;

    expect(toolParts(stopped)).toMatchObject([
      { toolCallId: "call-1", state: "output-error", errorText: STOPPED_TOOL_CALL_TEXT },
    ]);
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", status: "aborted" });
    // The follower saw the call closed before its stream ended.
    const followerChunks = follower.frames.flatMap((frame) => (frame.type === "chunk" ? [frame.chunk] : []));
    expect(followerChunks).toContainEqual({
      type: "tool-output-error",
      toolCallId: "call-1",
      errorText: STOPPED_TOOL_CALL_TEXT,
    });
    expect(frameTypes(follower, "resume-1").at(-1)).toBe("end");
    // The stored conversation is valid for the model, and the next turn runs, its model seeing why the call ended.
    await expect(convertToModelMessages(await store.messages(), { tools: { slow } })).resolves.toBeDefined();
    const next = await engine.send(null, () => ({ kind: "append", userMessage: userMessage("u2", "and now?") }));
    expect(textOf(next)).toBe(`saw error-text: ${STOPPED_TOOL_CALL_TEXT}`);
    expect(turns).toHaveLength(2);
  });

  it("drops a tool call whose input was still streaming (never decided), keeping what else streamed", async () => {
    const { engine, script } = setUpEngine({ tools: { slow: blockingTool().slow } });
    script([
      () => [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Let me look." },
        { type: "text-end", id: "t" },
        { type: "tool-input-start", id: "call-2", toolName: "slow" },
        { type: "tool-input-delta", id: "call-2", delta: '{"topic":' },
      ],
    ]);
    const sender = peer("sender");
    const turn = engine.send({ peer: sender, requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "look"),
    }));
    // The scripted stream ends without finishing its tool input.
    const answer = await turn;
    expect(textOf(answer)).toBe("Let me look.");
    expect(toolParts(answer)).toEqual([]);
  });

  it("repairs a conversation an earlier version stored with a tool call and no result, so the next turn runs", async () => {
    const store = new InMemoryChatStore();
    await store.upsertMessage(userMessage("u1", "research cats"));
    await store.upsertMessage({
      id: "a1",
      role: "assistant",
      parts: [{ type: "tool-slow", toolCallId: "old-call", state: "input-available", input: { topic: "cats" } }],
    } as UIMessage);
    const { slow } = blockingTool();
    const { engine, script } = setUpEngine({ store, tools: { slow } });
    script([
      textStep((call) => `saw ${(toolResultsSeen(call).get("old-call") as { value?: unknown } | undefined)?.value}`),
    ]);
    const answer = await engine.send(null, () => ({ kind: "append", userMessage: userMessage("u2", "again") }));
    expect(textOf(answer)).toBe(`saw ${UNFINISHED_TOOL_CALL_TEXT}`);
  });
});

describe("Stop by the answer's id", () => {
  it("stops the turn that streams that answer (what a page on stock useChat knows of it), never another", async () => {
    const { slow, started } = blockingTool();
    const { engine, script } = setUpEngine({ tools: { slow } });
    script([toolCallsStep("slow", [["call-1", { topic: "cats" }]])]);
    const follower = peer("reloaded tab");
    const turn = engine.send(null, () => ({ kind: "append", userMessage: userMessage("u1", "research cats") }));
    await started;
    // A tab that reloaded follows the turn: the stream it resumes starts with the answer's id.
    engine.resume({ peer: follower, requestId: "resume-1" });
    const start = follower.frames.flatMap((frame) => (frame.type === "chunk" ? [frame.chunk] : []))[0];
    expect(start).toMatchObject({ type: "start" });
    const answerId = (start as { messageId?: string }).messageId as string;
    expect(engine.stop("u1")).toBe(false);
    expect(engine.stop("another-answer")).toBe(false);
    expect(engine.stop(answerId)).toBe(true);
    const stopped = await turn;
    expect(stopped?.id).toBe(answerId);
    expect(toolParts(stopped)).toMatchObject([{ state: "output-error", errorText: STOPPED_TOOL_CALL_TEXT }]);
    expect(engine.stop(answerId)).toBe(false);
  });
});

describe("the send queue", () => {
  it("refuses a send past maxQueuedSends with a clear error frame and a ChatLimitError, running the others", async () => {
    const { slow, started } = blockingTool();
    const { engine, script, store } = setUpEngine({ tools: { slow }, limits: { maxQueuedSends: 2 } });
    script([toolCallsStep("slow", [["c", { topic: "x" }]])], [textStep(() => "two")], [textStep(() => "three")]);
    const tab = peer("tab");
    const send = (index: number) =>
      engine.send({ peer: tab, requestId: `r${index}` }, () => ({
        kind: "append",
        userMessage: userMessage(`u${index}`, `message ${index}`),
      }));
    const first = send(1);
    await started;
    const second = send(2);
    const third = send(3);
    expect(engine.queuedSends).toBe(2);
    await expect(send(4)).rejects.toBeInstanceOf(ChatLimitError);
    expect(tab.frames.filter((frame) => frame.requestId === "r4")).toEqual([
      { type: "error", requestId: "r4", errorText: expect.stringContaining("Too many messages are waiting") },
    ]);
    engine.stop(engine.activeTurnId as string);
    await Promise.all([first, second, third]);
    expect((await store.messages()).filter((message) => message.role === "user").map((message) => message.id)).toEqual([
      "u1",
      "u2",
      "u3",
    ]);
  });

  it("drops the queued sends of a peer that went away and a queued send its sender aborted; stores nothing of them", async () => {
    const { slow, started } = blockingTool();
    const { engine, script, store, events } = setUpEngine({ tools: { slow } });
    script([toolCallsStep("slow", [["c", { topic: "x" }]])], [textStep(() => "kept")]);
    const gone = peer("gone");
    const staying = peer("staying");
    const send = (to: typeof gone, index: number) =>
      engine.send({ peer: to, requestId: `r${index}` }, () => ({
        kind: "append",
        userMessage: userMessage(`u${index}`, `message ${index}`),
      }));
    const running = send(staying, 1);
    await started;
    const droppedByClose = send(gone, 2);
    const droppedByAbort = send(staying, 3);
    const kept = send(staying, 4);
    engine.disconnect(gone);
    engine.abort(staying, "r3");
    engine.stop(engine.activeTurnId as string);
    await running;
    expect(await droppedByClose).toBeNull();
    expect(await droppedByAbort).toBeNull();
    expect(textOf(await kept)).toBe("kept");
    const userIds = (await store.messages()).filter((message) => message.role === "user").map((message) => message.id);
    expect(userIds).toEqual(["u1", "u4"]);
    expect(events.filter((event) => event.type === "agent_tool:chat:send:dropped")).toHaveLength(2);
  });
});

describe("size limits", () => {
  it("refuses a client's message over maxMessageBytes before anything is written", async () => {
    const { engine, store, announced } = setUpEngine({ limits: { maxMessageBytes: 1_000 } });
    const tab = peer("tab");
    await handleChatRequest(
      { engine, send: (to, frame) => to.frames.push(frame) },
      tab,
      sendFrame("r1", [userMessage("u1", "x".repeat(2_000))]),
    );
    expect(tab.frames).toEqual([
      {
        type: "error",
        requestId: "r1",
        errorText: expect.stringMatching(/The message is too large \(2\.\d kB; the limit is 1\.0 kB\)/),
      },
    ]);
    expect(await store.messages()).toEqual([]);
    expect(await store.turns()).toEqual([]);
    expect(announced).toEqual([]);
  });

  it("rejects a message from code over maxMessageBytes with a typed ChatLimitError", async () => {
    const { engine, store } = setUpEngine({ limits: { maxMessageBytes: 1_000 } });
    const error = await engine.sendMessage(userMessage("u1", "x".repeat(5_000))).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ChatLimitError);
    expect(error).toMatchObject({ code: "LIMIT_EXCEEDED", limit: "maxMessageBytes", maximum: 1_000 });
    expect(AgentToolsError.isInstance(error)).toBe(true);
    expect(await store.messages()).toEqual([]);
  });

  it("a tool input or output over its limit ends the call with an error the model sees; nothing over it is stored", async () => {
    let ran = 0;
    const echo = tool({
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        ran += 1;
        return text.repeat(3);
      },
    });
    const { engine, script, store } = setUpEngine({
      tools: { echo },
      limits: { maxToolInputBytes: 2_000, maxToolOutputBytes: 3_000 },
    });
    script([
      toolCallsStep("echo", [
        ["big-input", { text: "i".repeat(2_500) }],
        ["big-output", { text: "o".repeat(1_500) }],
      ]),
      textStep((call) =>
        [...toolResultsSeen(call).entries()]
          .map(([id, output]) => `${id}:${(output as { type: string }).type}`)
          .join(" "),
      ),
    ]);
    const answer = await engine.send(null, () => ({ kind: "append", userMessage: userMessage("u1", "go") }));
    expect(ran).toBe(1);
    expect(textOf(answer)).toBe("big-input:error-text big-output:error-text");
    expect(toolParts(answer).map((part) => part.errorText)).toEqual([
      expect.stringContaining('The input of "echo" is too large'),
      expect.stringContaining('The output of "echo" is too large'),
    ]);
    expect(JSON.stringify(await store.messages())).not.toContain("o".repeat(4_000));
  });

  it("ends an answer over maxAnswerBytes as an error, keeping what came before the limit", async () => {
    const { engine, script, announced } = setUpEngine({ limits: { maxAnswerBytes: 5_000 } });
    script([
      () => [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...Array.from({ length: 100 }, (_, index) => ({
          type: "text-delta" as const,
          id: "t",
          delta: `${index}`.padEnd(100, "."),
        })),
        { type: "text-end", id: "t" },
        {
          type: "finish",
          finishReason: { unified: "stop", raw: undefined },
          usage: {
            inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 0, text: 0, reasoning: 0 },
          },
        },
      ],
    ]);
    const tab = peer("tab");
    const answer = await engine.send({ peer: tab, requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "go on and on"),
    }));
    const text = textOf(answer);
    expect(text.length).toBeGreaterThan(1_000);
    expect(text.length).toBeLessThan(5_000);
    expect(tab.frames.at(-1)).toEqual({
      type: "error",
      requestId: "r1",
      errorText: expect.stringContaining("too large to store"),
    });
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", status: "error" });
  });
});

describe("storage failures", () => {
  it("a turn whose answer cannot be stored still ends for every follower, visibly, and leaves no turn behind", async () => {
    const { engine, store, script, announced, events } = setUpEngine();
    script([textStep(() => "answer")]);
    const tab = peer("tab");
    store.failNext("finishTurn", new Error("disk full"));
    const answer = await engine.send({ peer: tab, requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "hi"),
    }));
    expect(textOf(answer)).toBe(`answer${UNSTORED_TURN_TEXT}`);
    expect(tab.frames.at(-1)).toEqual({
      type: "error",
      requestId: "r1",
      errorText: expect.stringContaining("disk full"),
    });
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", status: "error" });
    expect(await store.turns()).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "agent_tool:chat:store:error", operation: "finish", message: "disk full" }),
    );
  });

  it("a write of the streaming answer that fails ends the turn at once, as an error", async () => {
    const { engine, store, script } = setUpEngine();
    script([textStep(() => "answer")]);
    store.failNext("appendTurnChunks", new Error("write refused"));
    const tab = peer("tab");
    await engine.send({ peer: tab, requestId: "r1" }, () => ({ kind: "append", userMessage: userMessage("u1", "hi") }));
    expect(tab.frames.at(-1)).toEqual({
      type: "error",
      requestId: "r1",
      errorText: expect.stringContaining("The answer could not be saved: write refused"),
    });
  });

  it("a user message that cannot be stored ends its sender's stream with an error and starts no turn", async () => {
    const { engine, store, announced } = setUpEngine();
    store.failNext("beginTurn", new Error("disk full"));
    const tab = peer("tab");
    await expect(
      engine.send({ peer: tab, requestId: "r1" }, () => ({ kind: "append", userMessage: userMessage("u1", "hi") })),
    ).rejects.toThrow("disk full");
    expect(tab.frames.at(-1)).toEqual({
      type: "error",
      requestId: "r1",
      errorText: expect.stringContaining("could not be saved"),
    });
    expect(announced).toEqual([]);
    expect(await store.messages()).toEqual([]);
  });
});

describe("start-up recovery", () => {
  it("resumes the newest stored turn from its completed steps, counting the attempt before it writes", async () => {
    const store = new InMemoryChatStore();
    const turn = makeStoredTurn({ turnId: "cut", assistantMessageId: "answer-cut", userMessageId: "u1" });
    await store.beginTurn(turn, userMessage("u1", "hi"));
    await store.appendTurnChunks("cut", 0, [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "half an ans" },
    ]);
    const { engine, script, announced } = setUpEngine({ store });
    script([textStep(() => "the whole answer")]);
    store.failNext("rewriteTurnChunks", new Error("rewrite failed"));
    await engine.recover();
    // The resume failed on its first write, but its attempt is stored, and the turn was closed visibly.
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", turnId: "cut", status: "error" });
    expect(await store.turns()).toEqual([]);

    // Another cut turn, resumed for real: the model answers once, from the start of the step that was cut.
    await store.beginTurn(
      makeStoredTurn({ turnId: "cut-2", assistantMessageId: "answer-2", userMessageId: "u2" }),
      userMessage("u2", "again"),
    );
    await store.appendTurnChunks("cut-2", 0, [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
    ]);
    await engine.recover();
    const messages = await store.messages();
    expect(textOf(messages.at(-1))).toBe("the whole answer");
    expect(announced.filter((event) => event.kind === "turn-started").at(-1)).toMatchObject({
      turnId: "cut-2",
      resumed: true,
    });
  });

  it("stores the attempt before anything else, so a turn that fails every resume is closed after maxResumeAttempts", async () => {
    const store = new InMemoryChatStore();
    await store.beginTurn(makeStoredTurn({ turnId: "doomed", resumeAttempts: 0 }), userMessage("user-1", "hi"));
    for (let attempt = 1; attempt <= 2; attempt++) {
      const { engine } = setUpEngine({ store, maxResumeAttempts: 2 });
      // Each start-up dies before the resumed turn ends (the store refuses the rewrite and the end).
      store.failNext("rewriteTurnChunks");
      store.failNext("finishTurn", new Error("finishTurn failed"), 3);
      await engine.recover();
      expect((await store.turns())[0]?.resumeAttempts).toBe(attempt);
    }
    const { engine, announced } = setUpEngine({ store, maxResumeAttempts: 2 });
    await engine.recover();
    expect(await store.turns()).toEqual([]);
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", turnId: "doomed", status: "interrupted" });
    expect(textOf((await store.messages()).at(-1))).toBe(INTERRUPTED_TURN_TEXT);
  });

  it("a resumed turn goes on counting its own model calls from before the cut: a restart never resets its budget", async () => {
    const store = new InMemoryChatStore();
    const budget = { maxTokens: 20 };
    // Before the cut: one model call (25 tokens, over the budget of 20) decides a tool call, whose tool never returns.
    const cut = blockingTool();
    const first = setUpEngine({ store, metered: true, budget, tools: { slow: cut.slow } });
    first.script([withUsage(toolCallsStep("slow", [["call-1", { topic: "cats" }]]), 20, 5)]);
    void first.engine.send({ peer: peer("you"), requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "research cats"),
    }));
    await cut.started;
    const [stored] = await store.turns();
    expect(stored?.usage).toEqual({
      inputTokens: 20,
      outputTokens: 5,
      runs: 0,
      models: [{ model: "mock-model-id", provider: "mock-provider", inputTokens: 20, outputTokens: 5 }],
    });

    // The host is gone; a new one resumes the turn. Its budget is already out: its one model call is the wrap-up.
    const prompts: string[] = [];
    const second = setUpEngine({
      store,
      metered: true,
      budget,
      tools: { slow: tool({ inputSchema: z.object({ topic: z.string() }), execute: async () => "found" }) },
    });
    second.script([
      withUsage(
        (call) => {
          prompts.push(JSON.stringify(call.prompt));
          return textStep(() => "cut short")(call);
        },
        7,
        3,
      ),
    ]);
    await second.engine.recover();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain(JSON.stringify(WRAP_UP_INSTRUCTION).slice(1, -1));
    expect(second.announced.filter((event) => event.kind === "turn-ended")).toMatchObject([
      { turnId: stored?.turnId, status: "completed", usage: { inputTokens: 27, outputTokens: 8, runs: 0 } },
    ]);
  });

  it("an older turn row never hides the newest: the old one is closed as lost, the newest resumed", async () => {
    const store = new InMemoryChatStore();
    await store.beginTurn(
      makeStoredTurn({ turnId: "dead", assistantMessageId: "dead-answer", startedAt: 1_000, userMessageId: "u1" }),
      userMessage("u1", "old"),
    );
    await store.beginTurn(
      makeStoredTurn({ turnId: "live", assistantMessageId: "live-answer", startedAt: 5_000, userMessageId: "u2" }),
      userMessage("u2", "new"),
    );
    const { engine, script, announced } = setUpEngine({ store });
    script([textStep(() => "resumed answer")]);
    await engine.recover();
    const ended = announced.filter((event) => event.kind === "turn-ended");
    expect(ended).toMatchObject([
      { turnId: "dead", status: "error" },
      { turnId: "live", status: "completed" },
    ]);
    const messages = await store.messages();
    expect(messages.map((message) => message.id)).toEqual(["u1", "u2", "dead-answer", "live-answer"]);
    expect(textOf(messages[2])).toBe(UNSTORED_TURN_TEXT);
    expect(await store.turns()).toEqual([]);
  });
});

describe("following a turn", () => {
  it("a resume replays the turn from its start and follows it; its abort only stops following", async () => {
    const { slow, started } = blockingTool();
    const { engine, script, announced } = setUpEngine({ tools: { slow } });
    script([toolCallsStep("slow", [["c1", { topic: "t" }]])]);
    const sender = peer("sender");
    const second = peer("second");
    const turn = engine.send({ peer: sender, requestId: "r1" }, () => ({
      kind: "append",
      userMessage: userMessage("u1", "go"),
    }));
    await started;
    engine.resume({ peer: second, requestId: "resume-1" });
    const senderChunks = sender.frames.filter((frame) => frame.type === "chunk").length;
    expect(second.frames.filter((frame) => frame.type === "chunk")).toHaveLength(senderChunks);
    expect(
      second.frames.filter((frame) => frame.type === "chunk").map((frame) => (frame as { sequence: number }).sequence),
    ).toEqual(Array.from({ length: senderChunks }, (_, index) => index));
    engine.abort(second, "resume-1");
    expect(engine.activeTurnId).not.toBeNull();
    engine.abort(sender, "r1");
    await turn;
    expect(announced.at(-1)).toMatchObject({ kind: "turn-ended", status: "aborted" });
    expect(frameTypes(second, "resume-1")).not.toContain("end");
  });

  it("answers no-active to a resume when no turn runs", () => {
    const { engine } = setUpEngine();
    const tab = peer("tab");
    engine.resume({ peer: tab, requestId: "x" });
    expect(tab.frames).toEqual([{ type: "no-active", requestId: "x" }]);
  });

  it("refuses resumes past a peer's budget with an error frame", async () => {
    const { engine, clock } = setUpEngine();
    const budget = new RequestBudget<ReturnType<typeof peer>>({ clock, burst: 2, refillMs: 1_000 });
    const context = {
      engine,
      send: (to: ReturnType<typeof peer>, frame: never) => to.frames.push(frame),
      mayResume: (to: ReturnType<typeof peer>) => budget.take(to),
    };
    const tab = peer("tab");
    const resume = (id: string) =>
      handleChatRequest(
        context,
        tab,
        JSON.stringify({ type: "resume", requestId: id, id: "chat", headers: {}, body: {} }),
      );
    await resume("a");
    await resume("b");
    await resume("c");
    expect(tab.frames.map((frame) => frame.type)).toEqual(["no-active", "no-active", "error"]);
    expect(tab.frames[2]).toMatchObject({ errorText: TOO_MANY_RESUMES_TEXT });
    await clock.advanceBy(1_000);
    await resume("d");
    expect(tab.frames.at(-1)).toEqual({ type: "no-active", requestId: "d" });
  });

  it("answers a malformed frame with an error frame and changes nothing", async () => {
    const { engine, store } = setUpEngine();
    const tab = peer("tab");
    const context = { engine, send: (to: ReturnType<typeof peer>, frame: never) => to.frames.push(frame) };
    await handleChatRequest(context, tab, "not json");
    await handleChatRequest(context, tab, JSON.stringify({ type: "send", requestId: "r9" }));
    expect(tab.frames).toEqual([
      { type: "error", requestId: "", errorText: "Malformed frame: not JSON" },
      { type: "error", requestId: "r9", errorText: expect.stringContaining("Invalid request") },
    ]);
    expect(await store.messages()).toEqual([]);
  });
});

describe("a long conversation", () => {
  /** A store holding `count` messages, counting how often the whole conversation is read. */
  async function longConversation(count: number) {
    const store = new InMemoryChatStore();
    for (let index = 0; index < count; index += 1) {
      const id = `old-${index}`;
      await store.upsertMessage(
        index % 2 === 0
          ? userMessage(id, `question ${index}`)
          : { id, role: "assistant", parts: [{ type: "text", text: `answer ${index}` }] },
      );
    }
    const reads = { count: 0 };
    const messages = store.messages.bind(store);
    store.messages = () => {
      reads.count += 1;
      return messages();
    };
    return { store, reads };
  }

  it("reads the stored conversation once, not on every turn or send, and gives each turn all of it", async () => {
    const { store, reads } = await longConversation(200);
    const { engine, script, turns } = setUpEngine({ store });
    script([textStep(() => "one")], [textStep(() => "two")], [textStep(() => "three")]);
    await engine.sendMessage("first");
    await engine.sendMessage("second");
    const to = peer("tab");
    const conversation = await engine.messages();
    await handleChatRequest(
      { engine, send: (target, frame) => target.frames.push(frame) },
      to,
      sendFrame("r3", [...conversation, userMessage("u3", "third")]),
    );
    expect(frameTypes(to, "r3").at(-1)).toBe("end");
    expect(reads.count).toBe(1);
    expect(turns.map((turn) => turn.messages.length)).toEqual([201, 203, 205]);
    expect(textOf(turns[2]?.messages.at(-2))).toBe("two");
    expect((await store.messages()).length).toBe(206);
  });

  it("keeps what it holds in step with what it stores: an edit, a message appended, and a failed write read again", async () => {
    const { store, reads } = await longConversation(4);
    const { engine, script, turns } = setUpEngine({ store });
    script(
      [textStep(() => "one")],
      [textStep(() => "edited")],
      [textStep(() => "after the append")],
      [textStep(() => "after the failure")],
    );
    await engine.sendMessage("first");
    const to = peer("tab");
    const stored = await engine.messages();
    // An edit of the last user message drops its answer: the next turn sees the conversation as stored.
    await handleChatRequest(
      { engine, send: (target, frame) => target.frames.push(frame) },
      to,
      JSON.stringify({
        ...JSON.parse(sendFrame("edit", [...stored.slice(0, -2), userMessage("x", "first, edited")])),
        messageId: stored.at(-2)?.id,
      }),
    );
    expect(turns[1]?.messages.map((message) => message.id)).toEqual(
      (await store.messages()).slice(0, -1).map((m) => m.id),
    );
    await engine.appendMessage({ id: "note", role: "assistant", parts: [{ type: "text", text: "a note" }] });
    await engine.sendMessage("after the note");
    expect(turns[2]?.messages.some((message) => message.id === "note")).toBe(true);
    // A failed write: the engine reads the conversation again rather than trust what it holds.
    store.failNext("finishTurn", new Error("disk full"), 2);
    await engine.sendMessage("fails to store");
    const readsBefore = reads.count;
    script([textStep(() => "next")]);
    await engine.sendMessage("next");
    expect(reads.count).toBe(readsBefore + 1);
    expect(turns.at(-1)?.messages.map((message) => message.id)).toEqual(
      (await store.messages()).slice(0, -1).map((message) => message.id),
    );
  });

  it("gives turns and callers messages they cannot change by accident: the conversation held stays as stored", async () => {
    const { store } = await longConversation(2);
    const { engine, script, turns } = setUpEngine({ store });
    script([textStep(() => "one")], [textStep(() => "two")]);
    await engine.sendMessage("first");
    const held = turns[0]?.messages[0] as UIMessage;
    expect(() => (held.parts as unknown[]).push({ type: "text", text: "changed" })).toThrow(TypeError);
    const listed = await engine.messages();
    listed.pop();
    await engine.sendMessage("second");
    expect(turns[1]?.messages.length).toBe(5);
    expect(turns[1]?.messages).toEqual((await store.messages()).slice(0, -1));
  });
});
