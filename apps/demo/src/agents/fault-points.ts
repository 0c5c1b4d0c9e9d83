import type { AgentToolTurnStream } from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";

/**
 * Test-only fault points (issue 17's kill tests): places where a turn is held, forever, so that a test can kill the
 * runtime there. Off unless the `DEMO_FAULT_POINT` binding names one; a test restarts the runtime without it.
 *
 * - `before-user-message`: the Assistant has received a chat `send` and stored nothing of it;
 * - `parent-streaming`: the Assistant's model has streamed `DEMO_FAULT_TEXT_DELTAS` text deltas of a client's turn;
 * - `child-streaming`: a child has logged `DEMO_FAULT_TEXT_DELTAS` text deltas of its run (the parent is awaiting it);
 * - `after-tool-result`: the Assistant's turn has its first tool result, stored, and not yet the answer after it;
 * - `delivery-answer`: the model has streamed `DEMO_FAULT_TEXT_DELTAS` text deltas of its answer to a background
 *   run's completion (a turn the server started to deliver it);
 * - `between-tool-calls`: the Assistant's step has decided its first tool call (its input complete, stored) and the
 *   second's input is still streaming (its first half stored), as a model streams its calls' inputs one after another.
 *
 * The Assistant answers `GET /agents/assistant/<name>/fault` once its point is reached (`FaultReport`); a child's
 * point shows as its text deltas on the parent's event socket.
 */
export const FAULT_POINTS = [
  "before-user-message",
  "parent-streaming",
  "child-streaming",
  "after-tool-result",
  "delivery-answer",
  "between-tool-calls",
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

/** The fault knobs, as bindings. */
export type FaultEnv = {
  /** Hold turns at this point (one of `FAULT_POINTS`). */
  DEMO_FAULT_POINT?: string;
  /** At the streaming points: how many text deltas go out before the hold (default 2). */
  DEMO_FAULT_TEXT_DELTAS?: string;
};

/** What the Assistant says once its fault point is reached. */
export type FaultReport = { point: FaultPoint; detail: Record<string, unknown> };

/** The fault point the bindings name, or null (off). */
export function faultPointOf(env: FaultEnv): FaultPoint | null {
  return FAULT_POINTS.find((point) => point === env.DEMO_FAULT_POINT) ?? null;
}

/** How many text deltas go out before a streaming point holds. */
export function faultTextDeltas(env: FaultEnv): number {
  const value = Number(env.DEMO_FAULT_TEXT_DELTAS ?? "2");
  return Number.isInteger(value) && value >= 1 ? value : 2;
}

/** A predicate that holds from the `count`-th text delta on. */
export function afterTextDeltas(count: number): (chunk: UIMessageChunk) => boolean {
  let seen = 0;
  return (chunk) => {
    if (chunk.type === "text-delta") seen += 1;
    return seen >= count;
  };
}

/** One object's fault point: whether it is armed, holding a turn there, and telling who waits that it was reached. */
export class FaultHold {
  readonly point: FaultPoint | null;
  #reached: FaultReport | null = null;
  #waiters: Array<(report: FaultReport) => void> = [];

  constructor(env: FaultEnv) {
    this.point = faultPointOf(env);
  }

  /** True when this point is armed. */
  is(point: FaultPoint): boolean {
    return this.point === point;
  }

  /** Record that a turn reached the armed point, then hold it: never resolves (the test kills the runtime). */
  hold(detail: Record<string, unknown> = {}): Promise<never> {
    if (this.point !== null && this.#reached === null) {
      const report = { point: this.point, detail };
      this.#reached = report;
      for (const resolve of this.#waiters.splice(0)) resolve(report);
    }
    return new Promise<never>(() => {});
  }

  /** Resolves once a turn reached the armed point. */
  whenReached(): Promise<FaultReport> {
    if (this.#reached) return Promise.resolve(this.#reached);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/**
 * A turn stream that passes `stream`'s chunks through until `isHoldPoint` holds for one; when the consumer asks for
 * the chunk after it (so it has taken that one: sent it, logged it), `hold(streamed)` is awaited instead, which never
 * ends (`streamed`: every chunk passed through).
 */
export async function* holdStreamAfter(
  stream: AgentToolTurnStream,
  isHoldPoint: (chunk: UIMessageChunk) => boolean,
  hold: (streamed: readonly UIMessageChunk[]) => Promise<never>,
): AsyncGenerator<UIMessageChunk> {
  const streamed: UIMessageChunk[] = [];
  for await (const chunk of stream as AsyncIterable<UIMessageChunk>) {
    streamed.push(chunk);
    yield chunk;
    if (isHoldPoint(chunk)) await hold(streamed);
  }
}

/**
 * A turn stream whose step is cut between two tool calls: its chunks pass through until the second
 * `tool-input-available` of a step, which is replaced by the start of that call's input and its first half (as a model
 * streams a call's input before deciding it); then `hold(streamed)` is awaited, which never ends.
 */
export async function* holdBetweenToolCalls(
  stream: AgentToolTurnStream,
  hold: (streamed: readonly UIMessageChunk[]) => Promise<never>,
): AsyncGenerator<UIMessageChunk> {
  const streamed: UIMessageChunk[] = [];
  let decided = 0;
  for await (const chunk of stream as AsyncIterable<UIMessageChunk>) {
    if (chunk.type === "start-step") decided = 0;
    if (chunk.type === "tool-input-available") decided += 1;
    if (decided < 2 || chunk.type !== "tool-input-available") {
      streamed.push(chunk);
      yield chunk;
      continue;
    }
    const { toolCallId, toolName } = chunk;
    const input = JSON.stringify(chunk.input);
    const cut: UIMessageChunk[] = [
      { type: "tool-input-start", toolCallId, toolName },
      { type: "tool-input-delta", toolCallId, inputTextDelta: input.slice(0, Math.ceil(input.length / 2)) },
    ];
    for (const part of cut) {
      streamed.push(part);
      yield part;
    }
    await hold(streamed);
  }
}
