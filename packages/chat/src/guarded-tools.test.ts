// guardTools (Node): a tool starts only once its call is stored; a generator tool stays a generator (its
// preliminary results still stream); a tool without execute is left alone.
import { flushMicrotasks } from "@agent-tools/core-runs/testing";
import { type ToolExecutionOptions, type ToolSet, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { guardTools } from "./guarded-tools.js";

const callOptions = (toolCallId: string) => ({ toolCallId, messages: [] }) as unknown as ToolExecutionOptions<unknown>;

/** A `whenStored` that the test settles per call id. */
function storage() {
  const waiting = new Map<string, () => void>();
  return {
    whenStored: (toolCallId: string) => new Promise<void>((resolve) => waiting.set(toolCallId, resolve)),
    store: (toolCallId: string) => waiting.get(toolCallId)?.(),
    asked: () => [...waiting.keys()],
  };
}

describe("guardTools", () => {
  it("starts a tool only once its call is stored, with the call's own id", async () => {
    const started: string[] = [];
    const calls = storage();
    const tools = guardTools(
      {
        note: tool({
          inputSchema: z.object({ text: z.string() }),
          execute: async ({ text }, { toolCallId }) => {
            started.push(toolCallId);
            return `noted ${text}`;
          },
        }),
      },
      { whenStored: calls.whenStored },
    );
    const result = (tools.note.execute as (input: unknown, options: unknown) => Promise<string>)(
      { text: "hi" },
      callOptions("c1"),
    );
    await flushMicrotasks();
    expect(calls.asked()).toEqual(["c1"]);
    expect(started).toEqual([]);
    calls.store("c1");
    expect(await result).toBe("noted hi");
    expect(started).toEqual(["c1"]);
  });

  it("keeps a generator tool a generator: every preliminary value, after the call is stored", async () => {
    const calls = storage();
    const tools = guardTools(
      {
        count: tool({
          inputSchema: z.object({}),
          execute: async function* () {
            yield 1;
            yield 2;
          },
        }),
      },
      { whenStored: calls.whenStored },
    );
    const output = (tools.count.execute as (input: unknown, options: unknown) => AsyncIterable<number>)(
      {},
      callOptions("c2"),
    );
    expect(Symbol.asyncIterator in (output as object)).toBe(true);
    const values: number[] = [];
    const reading = (async () => {
      for await (const value of output) values.push(value);
    })();
    await flushMicrotasks();
    expect(values).toEqual([]);
    calls.store("c2");
    await reading;
    expect(values).toEqual([1, 2]);
  });

  it("leaves a tool without execute (a client-side tool) as it is", () => {
    const clientSide = { inputSchema: z.object({}) } as unknown as ToolSet[string];
    const tools = guardTools({ clientSide } as ToolSet, { whenStored: storage().whenStored });
    expect(tools["clientSide"]).toBe(clientSide);
  });
});
