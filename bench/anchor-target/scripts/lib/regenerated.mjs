// Issue 32, item 4: model output tokens made again after a child's host is cut, in Node (the runner and its turn are
// the packages' own, over the in-memory store and the manual clock: no time passes but the clock's). A child run of
// three steps (text + a `lookup` call; text + a second `lookup` call; its answer) on a scripted model that counts
// what it streams (4 characters a token, as the demo's). Its host is cut at a point, a new runner over the same
// storage wakes the run and it goes on to its end; the tokens made again are all the model made, over both hosts,
// less what the same run makes uncut. Works on the packages before and after the turn engine (what it needs of the
// child's context is the same there: it takes `context.tools` when there is one, its `getTools()` otherwise).
import { AgentToolChildRunner } from "@agent-tools/core-runs";
import { flushMicrotasks, InMemoryRunStore, ManualClock } from "@agent-tools/core-runs/testing";
import { convertToModelMessages, isStepCount, jsonSchema, streamText, tool, toUIMessageStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";

/** @type {Array<{ text: string, call?: { query: string } }>} */
const STEPS = [
  { text: "Looking up owls in the field guide and the notes. ", call: { query: "owls at night" } },
  { text: "Now checking what the second source says about them. ", call: { query: "owls hearing" } },
  {
    text: "Owls hunt at night, and they find their prey by ear: their hearing is very sharp. That is what both sources say.",
  },
];
/** @param {string} text */
const tokensOf = (text) => Math.ceil(text.length / 4);

/**
 * The cut points: where the first host is when it dies.
 * - `mid-step`: the second step's text half streamed (written);
 * - `between-steps`: the first step done and written, the second step's model call made, nothing of it streamed;
 * - `between-steps-unwritten`: the same, the first step's last chunks not yet written (the log writes what follows a
 *   burst's first chunk when the event loop turns: a cut before that loses them, unless they are written at once);
 * - `decided-call`: the second step's call decided and its tool running (slow), its result not come;
 * - `decided-call-unwritten`: the same, inside the burst window (the decision not written unless at once).
 */
export const CUT_POINTS = [
  "mid-step",
  "between-steps",
  "between-steps-unwritten",
  "decided-call",
  "decided-call-unwritten",
];

/**
 * A scripted model: step n of a call whose prompt holds n − 1 tool results; `cut` decides where it stops streaming.
 * @param {{ tokens: number }} counter
 * @param {((results: number, words: number) => number | undefined) | undefined} cut
 */
function countingModel(counter, cut) {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const results = prompt.filter((message) => message.role === "tool").length;
      const step = STEPS[Math.min(results, STEPS.length - 1)] ?? { text: "" };
      const words = step.text.match(/\S+\s*/g) ?? [];
      /** @type {Array<Record<string, unknown> & { type: string }>} */
      const parts = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
      ];
      for (const word of words) parts.push({ type: "text-delta", id: "t", delta: word });
      parts.push({ type: "text-end", id: "t" });
      const input = step.call ? JSON.stringify(step.call) : "";
      if (step.call) parts.push({ type: "tool-call", toolCallId: `lookup-${results + 1}`, toolName: "lookup", input });
      const usage = { inputTokens: { total: 10, noCache: 10 }, outputTokens: { total: tokensOf(step.text + input) } };
      parts.push({ type: "finish", finishReason: { unified: step.call ? "tool-calls" : "stop" }, usage });
      const stopAt = cut?.(results, words.length);
      const sent = stopAt === undefined ? parts : parts.slice(0, stopAt);
      counter.tokens += tokensOf(
        sent
          .map((part) =>
            String(part.type === "text-delta" ? part["delta"] : part.type === "tool-call" ? part["input"] : ""),
          )
          .join(""),
      );
      return {
        stream: /** @type {ReadableStream<never>} */ (
          new ReadableStream(
            /** @type {any} */ ({
              start(controller) {
                for (const part of sent) controller.enqueue(part);
                if (stopAt === undefined) controller.close();
              },
            }),
          )
        ),
      };
    },
  });
}

/**
 * @param {{ tokens: number }} counter
 * @param {() => ((results: number, words: number) => number | undefined) | undefined} cutFor
 * @param {(toolCallId: string) => boolean} slowTool
 * @returns {import("@agent-tools/core-runs").AgentToolChildDefinition}
 */
function researcher(counter, cutFor, slowTool) {
  const tools = () => ({
    lookup: tool({
      inputSchema: /** @type {import("ai").FlexibleSchema<{ query: string }>} */ (
        jsonSchema({ type: "object", properties: { query: { type: "string" } } })
      ),
      execute: async (/** @type {{ query: string }} */ { query }, { toolCallId }) => {
        if (slowTool?.(toolCallId)) await new Promise(() => {});
        return { facts: [`${query}: noted`] };
      },
    }),
  });
  return {
    agentType: "Researcher",
    getTools: tools,
    async turn(context) {
      /** @type {import("ai").ToolSet} */
      const used = /** @type {{ tools?: import("ai").ToolSet }} */ (context).tools ?? tools();
      return toUIMessageStream({
        stream: streamText({
          model: countingModel(counter, cutFor()),
          messages: await convertToModelMessages(context.messages, { tools: used }),
          tools: used,
          stopWhen: isStepCount(5),
          abortSignal: context.abortSignal,
        }).stream,
        tools: used,
      });
    },
  };
}

/**
 * Let a host work: microtasks and turns of the event loop; with `tick`, the clock moves too (bursts are written).
 * @param {ManualClock} clock
 * @param {number} rounds
 * @param {boolean} tick
 */
async function settle(clock, rounds, tick) {
  for (let round = 0; round < rounds; round += 1) {
    await flushMicrotasks(20);
    await new Promise((resolve) => setImmediate(resolve));
    if (tick) await clock.advanceBy(1);
  }
}

/**
 * One run of the child, cut at `point` (none: uncut); resolves the output tokens its model made over both hosts.
 * @param {string | undefined} point
 */
async function runOnce(point) {
  const counter = { tokens: 0 };
  const store = new InMemoryRunStore();
  const clock = new ManualClock(1_000);
  let host = 1;
  // In the first host, where its model stops streaming: `[step index, parts it sends]` → the parts to send.
  const cutFor = () => (/** @type {number} */ results, /** @type {number} */ words) => {
    if (host !== 1 || point === undefined) return undefined;
    if (point === "mid-step" && results === 1) return 2 + Math.floor(words / 2);
    if ((point === "between-steps" || point === "between-steps-unwritten") && results === 1) return 1;
    return undefined;
  };
  const slowTool = (/** @type {string} */ toolCallId) =>
    host === 1 && point?.startsWith("decided-call") === true && toolCallId === "lookup-2";
  const definition = researcher(counter, cutFor, slowTool);
  await new AgentToolChildRunner({ definition, store, clock }).start("r", "owls");
  await settle(clock, 60, !point?.endsWith("-unwritten"));
  if (point !== undefined) {
    host = 2;
    const runner = new AgentToolChildRunner({ definition, store, clock });
    await runner.inspect("r");
    for (let round = 0; round < 200 && (await store.getRun("r"))?.status === "running"; round += 1) {
      await settle(clock, 1, true);
    }
  }
  const run = await store.getRun("r");
  return { tokens: counter.tokens, status: run?.status ?? "missing" };
}

/** The workload: for each cut point, the output tokens made again (and whether the run still completed). */
export async function regenerated() {
  const uncut = await runOnce(undefined);
  /** @type {Record<string, { tokensAgain: number, status: string }>} */
  const points = {};
  for (const point of CUT_POINTS) {
    const cut = await runOnce(point);
    points[point] = { tokensAgain: cut.tokens - uncut.tokens, status: cut.status };
  }
  return { uncutTokens: uncut.tokens, points };
}
