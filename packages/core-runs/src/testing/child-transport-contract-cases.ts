import type { UIMessageChunk } from "ai";
import type { AgentToolChildDefinition } from "../child/child-definition.js";
import type { ChildRef, ChildTransport } from "../ports/child-transport.js";
import { type AgentToolTailItem, tailItemEntries } from "../protocol/index.js";
import { assertEqual, assertTrue } from "./contract-assert.js";
import { textChunks } from "./scripted-child.js";

/** The agentType the contract child must be registered under. */
export const CONTRACT_CHILD_AGENT_TYPE = "ContractChild";

/** What the contract child does, given as the run's input. */
export type ContractChildInput = {
  /** Text deltas of its answer (default `["ok"]`). */
  texts?: string[];
  /** End with an in-band stream error with this text. */
  fail?: string;
  /** After emitting, wait until cancelled (never completes on its own). */
  hold?: boolean;
  /** Structured output to record. */
  output?: unknown;
};

/**
 * The child every `ChildTransport` implementation runs the contract against: register it under
 * `CONTRACT_CHILD_AGENT_TYPE` on the child side of the transport being tested.
 */
export const contractChildDefinition: AgentToolChildDefinition = {
  agentType: CONTRACT_CHILD_AGENT_TYPE,
  turn({ input, abortSignal, setOutput }) {
    const options = (input ?? {}) as ContractChildInput;
    if (options.output !== undefined) setOutput(options.output);
    const chunks: UIMessageChunk[] = textChunks(options.texts ?? ["ok"]);
    if (options.fail !== undefined) chunks.splice(chunks.length - 1, 0, { type: "error", errorText: options.fail });
    return new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of options.hold ? chunks.slice(0, -2) : chunks) controller.enqueue(chunk);
        if (!options.hold) return controller.close();
        const release = () => {
          try {
            controller.close();
          } catch {
            // already cancelled by the runner
          }
        };
        if (abortSignal.aborted) release();
        else abortSignal.addEventListener("abort", release, { once: true });
      },
    });
  },
};

/** One case of the child transport contract. `runId()` gives a fresh run id for this case. */
export type ChildTransportContractCase = {
  name: string;
  run(transport: ChildTransport, runId: () => string): Promise<void>;
};

const ref = (runId: string): ChildRef => ({ agentType: CONTRACT_CHILD_AGENT_TYPE, runId });

/** Read a tail until it closes; at most `limit` items (a runaway tail fails the case instead of hanging). */
async function readTail(stream: ReadableStream<AgentToolTailItem>, limit = 10_000): Promise<AgentToolTailItem[]> {
  const reader = stream.getReader();
  const items: AgentToolTailItem[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return items;
      items.push(value);
      if (items.length > limit) throw new Error(`tail yielded more than ${limit} items`);
    }
  } finally {
    reader.releaseLock();
  }
}

/** Read a tail until it has yielded `count` entries (the run is live), then stop reading. */
async function readEntries(stream: ReadableStream<AgentToolTailItem>, count: number): Promise<AgentToolTailItem[]> {
  const reader = stream.getReader();
  const items: AgentToolTailItem[] = [];
  while (tailItemEntries(items).length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    items.push(value);
  }
  await reader.cancel();
  return items;
}

const sequencesOf = (items: AgentToolTailItem[]) => tailItemEntries(items).map((entry) => entry.sequence);
const terminalOf = (items: AgentToolTailItem[]) => {
  const last = items.at(-1);
  return last?.type === "terminal" ? last.inspection : null;
};
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/**
 * The contract every `ChildTransport` must pass, framework-free so it can run inside the host's runtime (e.g.
 * workerd). Each case needs the contract child registered (`contractChildDefinition`).
 */
export const childTransportContractCases: ReadonlyArray<ChildTransportContractCase> = [
  {
    name: "start acknowledges; the tail yields every entry in sequence, then the terminal",
    async run(transport, runId) {
      const id = runId();
      const started = await transport.start(ref(id), { texts: ["a", "b"], output: { n: 1 } });
      assertEqual(started.runId, id, "start returns the run's inspection");
      assertTrue(started.status === "running" || started.status === "completed", "a started run is live or done");
      const items = await readTail(transport.tail(ref(id), { afterSequence: 0 }));
      // The turn's 8 chunks, and its output (journaled as it is recorded).
      assertEqual(sequencesOf(items), range(1, 9), "contiguous sequences from 1");
      const terminal = terminalOf(items);
      assertEqual(terminal?.status, "completed", "the tail ends with the terminal");
      assertEqual(terminal?.summary, "ab", "summary is the assistant text");
      assertEqual(terminal?.output, { n: 1 }, "output is carried");
      assertEqual(terminal?.lastSequence, 9, "lastSequence is the last entry");
    },
  },
  {
    name: "start is idempotent: a second start runs no second turn",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { texts: ["x"] });
      const again = await transport.start(ref(id), { texts: ["y", "z"] });
      assertEqual(again.runId, id, "the second start returns the same run");
      const items = await readTail(transport.tail(ref(id), { afterSequence: 0 }));
      const deltas = tailItemEntries(items).flatMap((entry) =>
        entry.body.type === "text-delta" ? [entry.body.delta] : [],
      );
      assertEqual(deltas, ["x"], "only the first start's turn ran");
    },
  },
  {
    name: "inspect of a run the child never saw is null",
    async run(transport, runId) {
      assertEqual(await transport.inspect(ref(runId())), null, "null means no record yet");
    },
  },
  {
    name: "a tail sends entries in batches: each non-empty, consecutive, after the one before",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { texts: Array.from({ length: 40 }, (_, index) => `t${index} `) });
      const items = await readTail(transport.tail(ref(id), { afterSequence: 0 }));
      let last = 0;
      for (const item of items) {
        if (item.type !== "entries") continue;
        assertTrue(item.entries.length > 0, "an entries item is never empty");
        for (const entry of item.entries) {
          assertEqual(entry.sequence, last + 1, "sequences run on without a gap, across and within batches");
          last = entry.sequence;
        }
      }
      assertEqual(last, (await transport.inspect(ref(id)))?.lastSequence, "every logged entry was sent");
    },
  },
  {
    name: "a tail from a cursor yields only later entries",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { texts: ["a", "b", "c"] });
      await readTail(transport.tail(ref(id), { afterSequence: 0 }));
      const items = await readTail(transport.tail(ref(id), { afterSequence: 6 }));
      assertEqual(sequencesOf(items), [7, 8, 9], "entries after the cursor");
      assertEqual(terminalOf(items)?.status, "completed", "then the terminal");
    },
  },
  {
    name: "cancel ends a live run as aborted, idempotently",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { texts: ["a"], hold: true });
      const live = await readEntries(transport.tail(ref(id), { afterSequence: 0 }), 4);
      assertEqual(sequencesOf(live).slice(0, 4), [1, 2, 3, 4], "the live entries arrive before the end");
      const tail = readTail(transport.tail(ref(id), { afterSequence: 4 }));
      await transport.cancel(ref(id), "stop");
      await transport.cancel(ref(id));
      const items = await tail;
      assertEqual(terminalOf(items)?.status, "aborted", "the tail ends aborted");
      assertEqual((await transport.inspect(ref(id)))?.status, "aborted", "inspect says aborted");
    },
  },
  {
    name: "stopping a tail never cancels the run",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { hold: true });
      const controller = new AbortController();
      const stream = transport.tail(ref(id), { afterSequence: 0, signal: controller.signal });
      const reader = stream.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel();
      assertEqual((await transport.inspect(ref(id)))?.status, "running", "still running after the tail stopped");
      await transport.cancel(ref(id));
      assertEqual((await transport.inspect(ref(id)))?.status, "aborted", "cleanup");
    },
  },
  {
    name: "an in-band stream error ends the run as error",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { fail: "model overloaded" });
      const terminal = terminalOf(await readTail(transport.tail(ref(id), { afterSequence: 0 })));
      assertEqual(terminal?.status, "error", "error status");
      assertEqual(terminal?.error, "model overloaded", "the stream's error text");
    },
  },
  {
    name: "cancel of a finished run changes nothing",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), {});
      await readTail(transport.tail(ref(id), { afterSequence: 0 }));
      await transport.cancel(ref(id));
      assertEqual((await transport.inspect(ref(id)))?.status, "completed", "still completed");
    },
  },
  {
    name: "destroy deletes the run (cancelling it first), idempotently",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { hold: true });
      await transport.destroy(ref(id));
      assertEqual(await transport.inspect(ref(id)), null, "no record after destroy");
      await transport.destroy(ref(id));
    },
  },
  {
    name: "concurrent tails see the same entries",
    async run(transport, runId) {
      const id = runId();
      await transport.start(ref(id), { texts: ["a", "b", "c", "d"] });
      const [first, second] = await Promise.all([
        readTail(transport.tail(ref(id), { afterSequence: 0 })),
        readTail(transport.tail(ref(id), { afterSequence: 0 })),
      ]);
      assertEqual(sequencesOf(first), range(1, 10), "first tail");
      assertEqual(sequencesOf(second), range(1, 10), "second tail");
    },
  },
  {
    name: "startTail (where offered) starts the run and tails it from its first entry, in one call",
    async run(transport, runId) {
      if (!transport.startTail) return;
      const id = runId();
      const items = await readTail(await transport.startTail(ref(id), { texts: ["a", "b"], output: { n: 1 } }, {}, {}));
      assertEqual(sequencesOf(items), range(1, 9), "contiguous sequences from 1");
      const terminal = terminalOf(items);
      assertEqual(terminal?.status, "completed", "the tail ends with the terminal");
      assertEqual(terminal?.summary, "ab", "summary is the assistant text");
      assertEqual(terminal?.output, { n: 1 }, "output is carried");
    },
  },
  {
    name: "startTail is idempotent: a second one runs no second turn and replays the first's entries",
    async run(transport, runId) {
      if (!transport.startTail) return;
      const id = runId();
      const first = await readTail(await transport.startTail(ref(id), { texts: ["x"] }, {}, {}));
      const again = await readTail(await transport.startTail(ref(id), { texts: ["y", "z"] }, {}, {}));
      const deltas = (items: AgentToolTailItem[]) =>
        tailItemEntries(items).flatMap((entry) => (entry.body.type === "text-delta" ? [entry.body.delta] : []));
      assertEqual(deltas(first), ["x"], "the first turn");
      assertEqual(deltas(again), ["x"], "only the first start's turn ran");
      assertEqual(terminalOf(again)?.status, "completed", "the second tail ends with the terminal");
    },
  },
  {
    name: "stopping a startTail's tail never cancels the run",
    async run(transport, runId) {
      if (!transport.startTail) return;
      const id = runId();
      const controller = new AbortController();
      const stream = await transport.startTail(
        ref(id),
        { hold: true, texts: ["a"] },
        {},
        { signal: controller.signal },
      );
      const reader = stream.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => undefined);
      assertEqual((await transport.inspect(ref(id)))?.status, "running", "the run goes on");
      await transport.cancel(ref(id), "done");
      assertEqual((await transport.inspect(ref(id)))?.status, "aborted", "until cancelled");
    },
  },
];
