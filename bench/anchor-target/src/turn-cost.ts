import type { AgentToolChildRpc } from "@agent-tools/cloudflare";
import { type AgentToolTurnContext, type AgentToolTurnStream, RunBudget, systemClock } from "@agent-tools/core-runs";
import type { UIMessage } from "ai";
import type { SqlMeter } from "./sql-meter.js";

/**
 * The child-only micro-measure (`scripts/turn-cost.mjs`): what a child's turn costs inside its own object, with no
 * parent, no RPC and no client. Two figures, each the mean over `turns` back-to-back turns of C chunks (Date.now() has
 * 1 ms resolution in workerd, so short turns are timed together):
 *
 * - **drain**: the turn's stream read to its end the way `AgentToolChildRunner` reads it (one read after the other;
 *   its log writes per burst of chunks, a burst ending when the event loop turns). No store.
 * - **run**: a whole run in the object through the RPC surface the parent calls, in-process: `agentToolStart` then
 *   `agentToolTail(runId, 0)` (NDJSON bytes) read to its end. Runner, store, alarm, encoding. Also when `start`
 *   answered, and the SQL rows the run wrote.
 */
export type TurnCostSample = {
  count: number;
  turns: number;
  drainMsPerTurn: number;
  chunksPerTurn: number;
  runMsPerTurn: number;
  startAnsweredMsPerTurn: number;
  rowsWrittenPerTurn: number;
};

/** The part of the parent's RPC surface a whole run goes through. */
export type TurnCostChild = Pick<AgentToolChildRpc, "agentToolStart" | "agentToolTail">;

/** The child's own turn, opened outside any run. */
export type OpenTurn = (context: AgentToolTurnContext) => AgentToolTurnStream | Promise<AgentToolTurnStream>;

/** A turn context outside any run: what a runner would hand the turn for `input`, with inert hooks. */
export function detachedTurnContext(runId: string, input: unknown, message: UIMessage): AgentToolTurnContext {
  return {
    runId,
    input,
    messages: [message],
    tools: {},
    resumed: false,
    milestones: [],
    abortSignal: new AbortController().signal,
    tree: null,
    model: (model) => model as never,
    budget: new RunBudget({ budget: undefined, clock: systemClock }),
    trace: null,
    clock: systemClock,
    setOutput: () => undefined,
    appendChunk: () => null,
    publishEphemeral: () => false,
  };
}

/** `turns` turns of the child's, for `input` (whose user message is `text`), drained alone and then run whole. */
export async function measureTurnCost(
  child: TurnCostChild,
  openTurn: OpenTurn,
  meter: SqlMeter,
  options: { input: unknown; text: string; count: number; turns: number },
): Promise<TurnCostSample> {
  const { input, text, count, turns } = options;
  const prefix = `turn-cost-${crypto.randomUUID()}`;
  const message: UIMessage = { id: `${prefix}-input`, role: "user", parts: [{ type: "text", text }] };
  let chunks = 0;
  const drainStarted = Date.now();
  for (let turn = 0; turn < turns; turn += 1) {
    const stream = await openTurn(detachedTurnContext(`${prefix}-drain-${turn}`, input, message));
    const read = reader(stream);
    while (!(await read()).done) chunks += 1;
  }
  const drainMs = Date.now() - drainStarted;

  meter.reset();
  let answeredMs = 0;
  const runStarted = Date.now();
  for (let turn = 0; turn < turns; turn += 1) {
    const started = Date.now();
    const runId = `${prefix}-run-${turn}`;
    await child.agentToolStart(runId, input);
    answeredMs += Date.now() - started;
    const tail = (await child.agentToolTail(runId, 0)).getReader();
    while (!(await tail.read()).done) {
      // the NDJSON bytes, read as the transport reads them
    }
  }
  const runMs = Date.now() - runStarted;
  const rowsWritten = meter.read().rowsWritten;

  return {
    count,
    turns,
    drainMsPerTurn: drainMs / turns,
    chunksPerTurn: chunks / turns,
    runMsPerTurn: runMs / turns,
    startAnsweredMsPerTurn: answeredMs / turns,
    rowsWrittenPerTurn: rowsWritten / turns,
  };
}

/** The next-chunk function of a turn stream, as the runner reads it (a reader, or the async iterator). */
function reader(stream: AgentToolTurnStream): () => Promise<{ done?: boolean }> {
  if (stream instanceof ReadableStream) {
    const streamReader = stream.getReader();
    return () => streamReader.read();
  }
  const iterator = stream[Symbol.asyncIterator]();
  return () => iterator.next();
}
