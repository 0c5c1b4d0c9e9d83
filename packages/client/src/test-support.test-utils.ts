// Helpers shared by this package's tests (not exported from index.ts, not used by the package itself).
import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolEventFrame,
  parseAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import type { UIMessageChunk } from "ai";

/** A small deterministic RNG (mulberry32): the same seed gives the same sequence on every run. */
export function seededRandom(seed: number): () => number {
  let value = seed >>> 0;
  return () => {
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = value;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random integer in [0, bound). */
export const randomInt = (random: () => number, bound: number) => Math.floor(random() * bound);

/** A copy of `items` in a random order (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = randomInt(random, index + 1);
    const item = copy[index] as T;
    copy[index] = copy[other] as T;
    copy[other] = item;
  }
  return copy;
}

export { textPartChunks as textChunks, words } from "@agent-tools/core-runs/testing";

/** The chunks of one tool call whose input streams in `pieces` slices, then its output. */
export function toolChunks(options: {
  toolCallId: string;
  toolName: string;
  input: unknown;
  output: unknown;
  pieces?: number;
}): UIMessageChunk[] {
  const { toolCallId, toolName, input, output } = options;
  const json = JSON.stringify(input);
  const pieces = Math.max(1, options.pieces ?? 3);
  const size = Math.ceil(json.length / pieces);
  const deltas: UIMessageChunk[] = [];
  for (let start = 0; start < json.length; start += size) {
    deltas.push({ type: "tool-input-delta", toolCallId, inputTextDelta: json.slice(start, start + size) });
  }
  return [
    { type: "tool-input-start", toolCallId, toolName },
    ...deltas,
    { type: "tool-input-available", toolCallId, toolName, input },
    { type: "tool-output-available", toolCallId, output },
  ];
}

export type Frame = AgentToolEventFrame;
const TYPE = "agent-tool-event" as const;

/** Frames as a parent sends them (core-runs' run-frames shapes). */

export const started = (
  runId: string,
  options: {
    agentType?: string;
    parentToolCallId?: string;
    displayOrder?: number;
    startedAt?: number;
    detached?: true;
  } = {},
): Frame => ({
  type: TYPE,
  ...(options.parentToolCallId !== undefined ? { parentToolCallId: options.parentToolCallId } : {}),
  revision: 1,
  event: {
    kind: "started",
    runId,
    agentType: options.agentType ?? "Researcher",
    displayOrder: options.displayOrder ?? 0,
    inputPreview: `input of ${runId}`,
    startedAt: options.startedAt ?? 1000,
    ...(options.detached ? { detached: true as const } : {}),
  },
});
export const chunk = (
  runId: string,
  sequence: number | undefined,
  body: UIMessageChunk,
  parentToolCallId?: string,
): Frame => ({
  type: TYPE,
  ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
  ...(sequence !== undefined ? { sequence } : {}),
  event: { kind: "chunk", runId, body },
});
export const progress = (runId: string, data: Record<string, unknown>): Frame =>
  chunk(runId, undefined, { type: "data-agent-progress", data, transient: true });
export const milestone = (runId: string, sequence: number, name: string, at: number, fraction?: number): Frame =>
  chunk(runId, sequence, {
    type: "data-agent-milestone",
    data: { milestone: name, at, ...(fraction !== undefined ? { fraction } : {}) },
  });
export const finished = (runId: string, revision: number, summary = "done"): Frame => ({
  type: TYPE,
  revision,
  event: { kind: "finished", runId, summary },
});
export const interrupted = (runId: string, revision: number): Frame => ({
  type: TYPE,
  revision,
  event: { kind: "interrupted", runId, error: "stopped waiting", reason: "no-progress", childStillRunning: true },
});
export const failed = (runId: string, revision: number, error = "boom"): Frame => ({
  type: TYPE,
  revision,
  event: { kind: "error", runId, error },
});
export const cleared = (...runIds: string[]): Frame => ({ type: TYPE, event: { kind: "cleared", runIds } });

/** Frames carrying `chunks` with sequences from `first`. */
export const sequenced = (runId: string, chunks: readonly UIMessageChunk[], first = 1) =>
  chunks.map((body, index) => chunk(runId, first + index, body));

/** The cursors a connect URL carries, decoded (`null` when it carries none). */
export function cursorsOf(url: string): ReturnType<typeof parseAgentToolCursors> {
  return parseAgentToolCursors(new URL(url, "ws://relative.invalid").searchParams.get(AGENT_TOOL_CURSORS_PARAM));
}

export { FakeWebSocket, fakeWebSockets } from "./testing/fake-web-socket.js";
