/**
 * The agents of the approvals test (`test/approvals.test.ts`), in the host worker: `Relay` (binding `RELAY`) runs agent
 * tools itself — with input `{ text, depth }` its model calls `relay` (another `Relay`, `depth - 1`) while `depth > 1`,
 * else `write` (a `Writer`), then says what it got; `Writer` (binding `WRITER`) has a `write` tool that needs approval
 * (the AI SDK's `needsApproval`): its model asks to write the text, then says what the write gave. The parent's `relay`
 * tool starts a `Relay` at depth 2: the `Writer` is the parent's great-grandchild.
 *
 * Every model call, turn and write is counted in the `Probe` object (`POST /add?name=`), whose storage survives a
 * restart: `GET /probe/counts` (Worker level) reads them.
 */
import { AgentToolChild, type ChildNamespace } from "@agent-tools/cloudflare";
import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import { type ScriptedModelStep, textStep, toolCallsStep, toolResultsSeen } from "@agent-tools/core-runs/testing";
import { type ToolSet, tool } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { streamTurn } from "./stream-turn.js";

export type ApprovalEnv = {
  RELAY: DurableObjectNamespace;
  WRITER: DurableObjectNamespace;
  PROBE: DurableObjectNamespace;
};

/** Count one `name` in the probe (durable: in its storage). */
export async function count(env: { PROBE: DurableObjectNamespace }, name: string): Promise<void> {
  const probe = env.PROBE.get(env.PROBE.idFromName("probe"));
  await probe.fetch(`https://probe/add?name=${encodeURIComponent(name)}`, { method: "POST" });
}

/**
 * A model that calls `toolName` once (call id `callId`, with `input`), then — once the prompt holds that call's result —
 * says `answer(result)`. Which step it streams depends on the prompt, not on how often it was called: a turn that goes
 * on after an approval, or after a restart, asks it afresh. Each call is counted as `counter`.
 */
function oneToolModel(
  env: ApprovalEnv,
  counter: string,
  call: { toolName: string; callId: string; input: unknown },
  answer: (result: unknown) => string,
): MockLanguageModelV4 {
  const step: ScriptedModelStep = (options) => {
    const result = toolResultsSeen(options).get(call.callId);
    return result === undefined
      ? toolCallsStep(call.toolName, [[call.callId, call.input]])(options)
      : textStep(() => answer(result))(options);
  };
  return new MockLanguageModelV4({
    doStream: async (options) => {
      await count(env, counter);
      return { stream: convertArrayToReadableStream(step(options)) };
    },
  });
}

const resultText = (result: unknown) => JSON.stringify((result as { value?: unknown } | undefined)?.value ?? result);

/** A leaf whose `write` tool needs approval. */
export class Writer extends AgentToolChild<ApprovalEnv> {
  static readonly agentType = "Writer";

  getTools(): ToolSet {
    return {
      write: tool({
        description: "Write a text to a file",
        inputSchema: z.object({ text: z.string() }),
        needsApproval: true,
        execute: async ({ text }) => {
          await count(this.env, "writer-write");
          return `wrote ${text}`;
        },
      }),
    };
  }

  async turn({ input, messages, tools, abortSignal }: AgentToolTurnContext) {
    await count(this.env, "writer-turn");
    const { text } = input as { text: string };
    const model = oneToolModel(
      this.env,
      "writer-model",
      { toolName: "write", callId: "w1", input: { text } },
      (result) => `writer: ${resultText(result)}`,
    );
    return streamTurn({ model, messages, tools, abortSignal });
  }
}

/** A child that relays its text down: to another `Relay` while `depth > 1`, else to a `Writer`. */
export class Relay extends AgentToolChild<ApprovalEnv> {
  static readonly agentType = "Relay";

  protected override children(): Record<string, ChildNamespace> {
    return { Relay: this.env.RELAY, Writer: this.env.WRITER };
  }

  getTools(): ToolSet {
    return {
      relay: this.agentTool(Relay, {
        description: "Relay a text one level down",
        inputSchema: z.object({ text: z.string(), depth: z.number() }),
      }),
      write: this.agentTool(Writer, { description: "Write a text", inputSchema: z.object({ text: z.string() }) }),
    };
  }

  async turn({ input, messages, tools, abortSignal }: AgentToolTurnContext) {
    await count(this.env, "relay-turn");
    const { text, depth = 2 } = input as { text: string; depth?: number };
    const call =
      depth > 1
        ? { toolName: "relay", callId: `relay-${depth}`, input: { text, depth: depth - 1 } }
        : { toolName: "write", callId: `write-${depth}`, input: { text } };
    const model = oneToolModel(this.env, "relay-model", call, (result) => `relay ${depth}: ${resultText(result)}`);
    return streamTurn({ model, messages, tools, abortSignal });
  }
}
