import { sdkParts as sdkAssembly, unitUsage as usage } from "@agent-tools/core-runs/testing";
import { isStepCount, streamText, tool, toUIMessageStream, type UIMessageChunk } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  applyUIMessageChunk,
  assembleUIMessageParts,
  createUIMessageAssembly,
  type UIMessageParts,
} from "./apply-ui-message-chunk.js";
import { randomInt, seededRandom, textChunks, toolChunks } from "./test-support.test-utils.js";

/** The parts the AI SDK's own assembly makes of `chunks`. */
async function sdkParts(chunks: readonly UIMessageChunk[]): Promise<UIMessageParts> {
  const errors: unknown[] = [];
  const parts = await sdkAssembly(chunks, (error) => errors.push(error));
  // In-band `error` chunks reach onError too; anything else means the SDK stopped on an invalid sequence.
  const inBand = new Set(chunks.flatMap((chunk) => (chunk.type === "error" ? [chunk.errorText] : [])));
  const rejected = errors.filter((error) => !(error instanceof Error && inBand.has(error.message)));
  expect(rejected, "the SDK rejected the chunk sequence: the test built an invalid one").toEqual([]);
  return parts;
}

/** Our parts after every prefix of `chunks` equal the SDK's on the same prefix. */
async function expectSameAsSdk(chunks: readonly UIMessageChunk[], { everyPrefix = true } = {}) {
  let assembly = createUIMessageAssembly();
  for (let index = 0; index < chunks.length; index++) {
    assembly = applyUIMessageChunk(assembly, chunks[index] as UIMessageChunk);
    if (everyPrefix || index === chunks.length - 1) {
      expect(assembly.parts, `after chunk ${index} (${chunks[index]?.type})`).toEqual(
        await sdkParts(chunks.slice(0, index + 1)),
      );
    }
  }
  expect(assembleUIMessageParts(chunks)).toEqual(assembly.parts);
  return assembly;
}

describe("applyUIMessageChunk equals readUIMessageStream", () => {
  it("assembles a streamed text answer", async () => {
    await expectSameAsSdk([
      { type: "start", messageId: "m1" },
      { type: "start-step" },
      ...textChunks("t1", "Cats sleep for most of the day, about sixteen hours."),
      { type: "finish-step" },
      { type: "finish", finishReason: "stop" },
    ]);
  });

  it("assembles reasoning, two text parts and provider metadata", async () => {
    await expectSameAsSdk([
      { type: "start" },
      { type: "start-step" },
      { type: "reasoning-start", id: "r1", providerMetadata: { test: { a: 1 } } },
      { type: "reasoning-delta", id: "r1", delta: "Think " },
      { type: "reasoning-delta", id: "r1", delta: "twice.", providerMetadata: { test: { a: 2 } } },
      { type: "reasoning-end", id: "r1" },
      { type: "text-start", id: "a" },
      { type: "text-start", id: "b" },
      { type: "text-delta", id: "a", delta: "First" },
      { type: "text-delta", id: "b", delta: "Second" },
      { type: "text-end", id: "b", providerMetadata: { test: { done: true } } },
      { type: "text-delta", id: "a", delta: " and more" },
      { type: "text-end", id: "a" },
      { type: "finish-step" },
    ]);
  });

  it("assembles tool calls over several steps: streamed input, outputs, errors, dynamic tools", async () => {
    await expectSameAsSdk([
      { type: "start", messageId: "m1" },
      { type: "start-step" },
      ...textChunks("t1", "Looking that up."),
      ...toolChunks({
        toolCallId: "c1",
        toolName: "lookup",
        input: { query: "cats", limit: 3, tags: ["a", "b"], deep: { ok: true, none: null, n: -1.5e3 } },
        output: { facts: ["purr"] },
        pieces: 9,
      }),
      { type: "tool-input-start", toolCallId: "c2", toolName: "mcp-search", dynamic: true, title: "Search" },
      { type: "tool-input-delta", toolCallId: "c2", inputTextDelta: '{"q":"do' },
      { type: "tool-input-delta", toolCallId: "c2", inputTextDelta: 'gs"}' },
      { type: "tool-input-available", toolCallId: "c2", toolName: "mcp-search", input: { q: "dogs" }, dynamic: true },
      { type: "tool-output-available", toolCallId: "c2", output: "partial", preliminary: true, dynamic: true },
      { type: "tool-output-available", toolCallId: "c2", output: "final", dynamic: true },
      { type: "tool-input-error", toolCallId: "c3", toolName: "broken", input: "{bad", errorText: "Invalid input" },
      { type: "finish-step" },
      { type: "start-step" },
      {
        type: "tool-input-available",
        toolCallId: "c4",
        toolName: "fetch",
        input: { url: "https://example.com" },
        providerExecuted: true,
        providerMetadata: { test: { call: 1 } },
        toolMetadata: { source: "x" },
      },
      { type: "tool-output-error", toolCallId: "c4", errorText: "HTTP 500", providerMetadata: { test: { result: 1 } } },
      ...textChunks("t2", "One source failed, but cats purr."),
      { type: "finish-step" },
      { type: "finish" },
    ]);
  });

  it("assembles a tool's text-encoded input and a result for a call of an earlier step", async () => {
    await expectSameAsSdk([
      { type: "start-step" },
      { type: "tool-input-start", toolCallId: "c1", toolName: "shell", inputEncoding: "text" },
      { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: "ls -" },
      { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: "la" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "shell", input: "ls -la" },
      { type: "start-step" },
      { type: "tool-output-available", toolCallId: "c1", output: "total 0" },
    ]);
  });

  it("assembles approvals and denied outputs", async () => {
    await expectSameAsSdk([
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "pay", input: { amount: 5 } },
      { type: "tool-approval-request", approvalId: "ap1", toolCallId: "c1", reason: "money", isAutomatic: true },
      { type: "tool-approval-response", approvalId: "ap1", approved: false, reason: "no" },
      { type: "tool-output-denied", toolCallId: "c1" },
      { type: "tool-input-available", toolCallId: "c2", toolName: "pay", input: { amount: 1 } },
      { type: "tool-approval-request", approvalId: "ap2", toolCallId: "c2", inputSchemaInput: undefined },
      { type: "tool-approval-response", approvalId: "ap2", approved: true, providerExecuted: true },
      { type: "tool-output-available", toolCallId: "c2", output: "paid" },
    ]);
  });

  it("assembles data parts (by id, without id, transient) with the seed's progress and milestone parts", async () => {
    const { parts } = await expectSameAsSdk([
      { type: "start" },
      { type: "data-status", id: "s", data: { step: 1 } },
      { type: "data-agent-progress", data: { fraction: 0.2, message: "reading", at: 1 }, transient: true },
      { type: "data-status", id: "s", data: { step: 2 } },
      { type: "data-log", data: "no id" },
      { type: "data-log", data: "no id again" },
      { type: "data-agent-milestone", data: { milestone: "fetched", at: 2 } },
      { type: "data-hidden", data: 1, transient: true },
      { type: "data-status", id: "other", data: { step: 9 } },
    ]);
    expect(parts.map((part) => part.type)).toEqual([
      "data-status",
      "data-log",
      "data-log",
      "data-agent-milestone",
      "data-status",
    ]);
  });

  it("assembles sources, files, custom parts and steering messages, and ignores errors, aborts and metadata", async () => {
    const assembly = await expectSameAsSdk([
      { type: "start", messageMetadata: { a: 1 } },
      { type: "start-step" },
      { type: "source-url", sourceId: "s1", url: "https://example.com/cats", title: "Cats" },
      { type: "source-document", sourceId: "s2", mediaType: "application/pdf", title: "Paper", filename: "p.pdf" },
      { type: "file", url: "data:text/plain;base64,aGk=", mediaType: "text/plain" },
      { type: "reasoning-file", url: "https://example.com/r.png", mediaType: "image/png", providerMetadata: { x: {} } },
      { type: "custom", kind: "openai.compaction", providerMetadata: { openai: { id: "1" } } },
      { type: "steering-message", id: "u2", parts: [{ type: "text", text: "also dogs" }] },
      { type: "error", errorText: "rate limited" },
      { type: "message-metadata", messageMetadata: { b: 2 } },
      { type: "abort", reason: "user" },
      { type: "finish", finishReason: "error" },
    ]);
    expect(assembly.errorText).toBe("rate limited");
  });

  it("drops a reset step's parts, and starts over on a `start` with a new message id", async () => {
    await expectSameAsSdk([
      { type: "start", messageId: "m1" },
      { type: "start-step" },
      ...textChunks("t1", "kept"),
      { type: "start-step" },
      { type: "text-start", id: "t2" },
      { type: "text-delta", id: "t2", delta: "dropped" },
      { type: "tool-input-start", toolCallId: "c1", toolName: "x" },
      { type: "reset-step" },
      ...textChunks("t3", "retried"),
      { type: "start", messageId: "m1" },
      ...textChunks("t4", "same message"),
      { type: "start", messageId: "m2" },
      ...textChunks("t5", "a new message"),
    ]);
  });

  it("assembles the chunks of a real streamText turn (reasoning, a tool, two steps) on the SDK's mock model", async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        if (calls === 1) {
          return {
            stream: convertArrayToReadableStream([
              { type: "stream-start", warnings: [] },
              { type: "reasoning-start", id: "r" },
              { type: "reasoning-delta", id: "r", delta: "Need facts." },
              { type: "reasoning-end", id: "r" },
              { type: "tool-input-start", id: "c1", toolName: "lookup" },
              { type: "tool-input-delta", id: "c1", delta: '{"q":' },
              { type: "tool-input-delta", id: "c1", delta: '"cats"}' },
              { type: "tool-input-end", id: "c1" },
              { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: JSON.stringify({ q: "cats" }) },
              { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
            ]),
          };
        }
        return {
          stream: convertArrayToReadableStream([
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Cats " },
            { type: "text-delta", id: "t", delta: "sleep a lot." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]),
        };
      },
    });
    const tools = {
      lookup: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => ({ fact: `${q} sleep` }) }),
    };
    const result = streamText({
      model,
      prompt: "cats?",
      tools,
      stopWhen: isStepCount(3),
    });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream({ stream: result.stream, tools })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toContain("tool-output-available");
    const { parts } = await expectSameAsSdk(chunks);
    expect(parts.map((part) => part.type)).toEqual(["step-start", "reasoning", "tool-lookup", "step-start", "text"]);
  });

  it("matches the SDK on randomly generated valid chunk streams (seeded)", async () => {
    // Every prefix of shorter streams, and the end of longer ones (400 seeds × 90 chunks, every prefix, also pass;
    // they take a minute and a half).
    for (let seed = 1; seed <= 40; seed++) await expectSameAsSdk(randomChunkStream(seededRandom(seed), 45));
    for (let seed = 41; seed <= 140; seed++) {
      await expectSameAsSdk(randomChunkStream(seededRandom(seed), 150), { everyPrefix: false });
    }
  }, 30_000);

  it("never changes the assembly it is given", () => {
    const chunks = [
      { type: "start-step" },
      ...textChunks("t", "frozen input"),
      ...toolChunks({ toolCallId: "c", toolName: "x", input: { a: 1 }, output: 2 }),
      { type: "data-x", id: "d", data: 1 },
      { type: "data-x", id: "d", data: 2 },
    ] satisfies UIMessageChunk[];
    let assembly = deepFreeze(createUIMessageAssembly());
    for (const chunk of chunks) assembly = deepFreeze(applyUIMessageChunk(assembly, deepFreeze(chunk)));
    expect(assembly.parts).toHaveLength(4);
  });

  it("skips chunks the SDK would stop on, and malformed ones, instead of throwing", () => {
    const chunks = [
      { type: "text-delta", id: "nope", delta: "lost" },
      { type: "tool-output-available", toolCallId: "unknown", output: 1 },
      { type: "tool-input-delta", toolCallId: "unknown", inputTextDelta: "{" },
      { type: "text-start" },
      { type: 42 },
      ...textChunks("t", "still here"),
    ] as unknown as UIMessageChunk[];
    expect(assembleUIMessageParts(chunks)).toEqual([{ type: "text", text: "still here", state: "done" }]);
  });
});

/** What a random stream has open while it is built: what its next chunks may refer to. */
type OpenParts = {
  texts: string[];
  reasoning: string[];
  streaming: Array<{ id: string; name: string; json: string; sent: number; dynamic: boolean }>;
  called: Array<{ id: string; dynamic: boolean }>;
  approvals: Array<{ approvalId: string; toolCallId: string }>;
};

/** One step of {@link randomChunkStream}: the stream so far, what is open, and what this step picked of it. */
type StreamStep = {
  readonly random: () => number;
  readonly chunks: UIMessageChunk[];
  readonly open: OpenParts;
  readonly next: () => string;
  readonly counter: () => number;
  readonly pick: <T>(items: readonly T[]) => T | undefined;
  readonly text: string | undefined;
  readonly reasoning: string | undefined;
  readonly partial: OpenParts["streaming"][number] | undefined;
  readonly call: OpenParts["called"][number] | undefined;
};

/** A random chunk stream that the SDK accepts (no chunk refers to a part that does not exist). */
function randomChunkStream(random: () => number, length: number): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [{ type: "start", messageId: "m" }, { type: "start-step" }];
  const open: OpenParts = { texts: [], reasoning: [], streaming: [], called: [], approvals: [] };
  let counter = 0;
  const pick = <T>(items: readonly T[]): T | undefined => items[randomInt(random, items.length)];
  const next = () => `${++counter}`;
  while (chunks.length < length) {
    const action = randomInt(random, 22);
    const step: StreamStep = {
      random,
      chunks,
      open,
      next,
      counter: () => counter,
      pick,
      text: pick(open.texts),
      reasoning: pick(open.reasoning),
      partial: pick(open.streaming),
      call: pick(open.called),
    };
    if (action < 8) textStep(action, step);
    else if (action < 17) toolStep(action, step);
    else otherStep(action, step);
  }
  return chunks;
}

/** Actions 0–7: a step, text and reasoning parts. */
function textStep(action: number, { chunks, open, next, text, reasoning }: StreamStep): void {
  switch (action) {
    case 0:
      chunks.push({ type: "start-step" });
      break;
    case 1: {
      const id = `t${next()}`;
      open.texts.push(id);
      chunks.push({ type: "text-start", id });
      break;
    }
    case 2:
    case 3:
      if (text) chunks.push({ type: "text-delta", id: text, delta: `w${next()} ` });
      break;
    case 4:
      if (text) {
        open.texts = open.texts.filter((id) => id !== text);
        chunks.push({ type: "text-end", id: text });
      }
      break;
    case 5: {
      const id = `r${next()}`;
      open.reasoning.push(id);
      chunks.push({ type: "reasoning-start", id });
      break;
    }
    case 6:
      if (reasoning) chunks.push({ type: "reasoning-delta", id: reasoning, delta: `think${next()} ` });
      break;
    default:
      if (reasoning) {
        open.reasoning = open.reasoning.filter((id) => id !== reasoning);
        chunks.push({ type: "reasoning-end", id: reasoning });
      }
      break;
  }
}

/** Actions 8–16: tool calls, their inputs, outputs and approvals. */
function toolStep(action: number, step: StreamStep): void {
  const { random, chunks, open, next, pick, partial, call } = step;
  switch (action) {
    case 8: {
      const id = `c${next()}`;
      const dynamic = random() < 0.3;
      const name = dynamic ? "dyn-tool" : (pick(["lookup", "fetch-page", "sum"]) ?? "sum");
      const json = JSON.stringify({ q: `query ${id}`, n: randomInt(random, 1000) / 10, list: [true, null] });
      open.streaming.push({ id, name, json, sent: 0, dynamic });
      chunks.push({
        type: "tool-input-start",
        toolCallId: id,
        toolName: name,
        ...(dynamic ? { dynamic: true } : {}),
        ...(random() < 0.3 ? { title: `Title ${id}` } : {}),
        ...(random() < 0.2 ? { providerExecuted: true } : {}),
      });
      break;
    }
    case 9:
    case 10:
      if (partial && partial.sent < partial.json.length) {
        const size = 1 + randomInt(random, 8);
        chunks.push({
          type: "tool-input-delta",
          toolCallId: partial.id,
          inputTextDelta: partial.json.slice(partial.sent, partial.sent + size),
        });
        partial.sent += size;
      }
      break;
    case 11:
      if (partial) {
        open.streaming = open.streaming.filter((item) => item !== partial);
        open.called.push({ id: partial.id, dynamic: partial.dynamic });
        chunks.push({
          type: "tool-input-available",
          toolCallId: partial.id,
          toolName: partial.name,
          input: JSON.parse(partial.json),
          ...(partial.dynamic ? { dynamic: true } : {}),
          ...(random() < 0.3 ? { providerMetadata: { test: { n: step.counter() } } } : {}),
        });
      }
      break;
    case 12:
      if (call) {
        chunks.push({
          type: "tool-output-available",
          toolCallId: call.id,
          output: { result: next() },
          ...(random() < 0.3 ? { preliminary: true } : {}),
          ...(call.dynamic ? { dynamic: true } : {}),
        });
      }
      break;
    case 13:
      if (call) chunks.push({ type: "tool-output-error", toolCallId: call.id, errorText: `failed ${next()}` });
      break;
    case 14: {
      const id = `c${next()}`;
      chunks.push({ type: "tool-input-error", toolCallId: id, toolName: "bad", input: "{x", errorText: "invalid" });
      open.called.push({ id, dynamic: false });
      break;
    }
    case 15:
      if (call) {
        const approvalId = `a${next()}`;
        // A new request replaces the call's approval: the old id is gone.
        open.approvals = [
          ...open.approvals.filter((item) => item.toolCallId !== call.id),
          { approvalId, toolCallId: call.id },
        ];
        chunks.push({ type: "tool-approval-request", approvalId, toolCallId: call.id });
      }
      break;
    default: {
      const approvalId = pick(open.approvals)?.approvalId;
      if (approvalId) chunks.push({ type: "tool-approval-response", approvalId, approved: random() < 0.5 });
      break;
    }
  }
}

/** Actions 17–21: data parts, sources and files, errors, a reset step, a new message, a denied output. */
function otherStep(action: number, { random, chunks, open, next, counter, pick, call }: StreamStep): void {
  switch (action) {
    case 17:
      chunks.push({
        type: "data-note",
        ...(random() < 0.6 ? { id: `n${randomInt(random, 3)}` } : {}),
        data: { value: next() },
        ...(random() < 0.2 ? { transient: true } : {}),
      });
      break;
    case 18:
      chunks.push(
        pick<UIMessageChunk>([
          { type: "source-url", sourceId: `s${next()}`, url: "https://example.com" },
          { type: "file", url: "https://example.com/f.png", mediaType: "image/png" },
          { type: "error", errorText: "oops" },
          { type: "finish-step" },
          { type: "data-agent-milestone", data: { milestone: `m${counter()}`, at: counter() } },
        ]) ?? { type: "finish-step" },
      );
      break;
    case 19:
      if (random() < 0.3) {
        // reset-step: the current step's parts and all open bookkeeping go away.
        chunks.push({ type: "reset-step" });
        closeAll(open);
      }
      break;
    case 20:
      if (random() < 0.2) {
        chunks.push({ type: "start", messageId: `m${next()}` });
        closeAll(open);
      }
      break;
    default:
      if (call) chunks.push({ type: "tool-output-denied", toolCallId: call.id });
      break;
  }
}

function closeAll(open: OpenParts): void {
  open.texts = [];
  open.reasoning = [];
  open.streaming = [];
  open.called = [];
  open.approvals = [];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
