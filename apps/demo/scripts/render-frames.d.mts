// Types for render-frames.mjs (a plain ES module run by Node without a build step).
import type { AgentToolFrameCursor } from "@agent-tools/client";

export type RenderRun = {
  runId: string;
  agentType: string | null;
  /** Short tag printed on every line of the run, e.g. `[res1]`. */
  tag: string;
  status: "unknown" | "running" | "completed" | "error" | "aborted" | "interrupted";
  /** What the run accepted so far, by the protocol's rule (`acceptAgentToolFrame`). */
  cursor: AgentToolFrameCursor;
  /** Text not yet printed (no full line yet). */
  pending: string;
  lastProgress: string | null;
  tools: Map<string, string>;
  parentToolCallId: string | null;
  /** Dispatched in the background (its started frame said `detached`). */
  detached: boolean;
};

export type RenderState = {
  runs: Map<string, RenderRun>;
  cleared: Set<string>;
  tagCounters: Map<string, number>;
  chatTools: Map<string, string>;
  chatError: string | null;
  /** Background runs whose completion was told to the chat (`told`), and answered by the server's turn. */
  deliveries: Map<string, "told" | "answered">;
  /** Turns the server started that have not ended yet. */
  serverTurns: Set<string>;
};

export const TERMINAL_STATUSES: readonly string[];
export function createRenderState(): RenderState;
export function isTerminal(status: unknown): boolean;
export function progressBar(fraction: unknown, width?: number): string;
export function printable(text: unknown): string;
export function truncate(text: unknown, max: number): string;
export function parseFrame(input: unknown): Record<string, unknown> | null;
export function renderFrame(state: RenderState, input: unknown, options?: { replay?: boolean }): string[];
export function renderChatChunk(state: RenderState, chunk: unknown): { text: string; lines: string[] };
export function renderChatEvent(state: RenderState, input: unknown): string[];
export function renderRunInfo(state: RenderState, info: unknown): string[];
export function flushAll(state: RenderState): string[];
export function encodeCursors(state: RenderState): string;
