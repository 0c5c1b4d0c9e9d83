// Terminal rendering for `pnpm demo:chat`: agent-tool-event frames and chat chunks → printable lines.
//
// No I/O here: every function takes a render state (from `createRenderState()`) and returns the lines to print,
// so the rendering can be unit-tested. Nothing in this module throws on malformed input; what cannot be read is
// skipped.
//
// Line shapes (each child line carries a short run tag, so concurrent runs can interleave):
//   ┌ [res1] Researcher (agent-tool:call-1) started — research cats
//   │ [res1] Looking that up.
//   │ [res1] → tool lookup({"query":"cats"})
//   │ [res1] [████░░░░░░] 40% reading sources
//   │ [res1] ◆ sources-read
//   └ [res1] finished: Findings on "cats": …
//
// Whether a frame is new to its run is the protocol's rule (`acceptAgentToolFrame`), from the client package: the
// same rule the client's reducer applies.

import { acceptAgentToolFrame, NO_FRAMES_ACCEPTED, TERMINAL_STATUS_OF_KIND } from "@agent-tools/client";
import { encodeAgentToolCursors, isObject } from "@agent-tools/core-runs/protocol";

/** Statuses after which a run is no longer live (`interrupted` is soft, but nothing more is awaited). */
export const TERMINAL_STATUSES = Object.freeze(Object.values(TERMINAL_STATUS_OF_KIND));
const TEXT_WRAP = 96;
const PREVIEW = 60;
const SUMMARY = 240;

/** A fresh render state: the runs seen so far (tags, statuses, revisions, applied sequences), and cleared runIds. */
export function createRenderState() {
  return {
    runs: new Map(),
    cleared: new Set(),
    tagCounters: new Map(),
    chatTools: new Map(),
    chatError: null,
    deliveries: new Map(),
    serverTurns: new Set(),
  };
}

/** True when `status` is terminal (including the soft `interrupted`). */
export function isTerminal(status) {
  return TERMINAL_STATUSES.includes(status);
}

/** `[████░░░░░░]` for a fraction in [0, 1] (clamped; anything else renders empty). */
export function progressBar(fraction, width = 10) {
  const value = typeof fraction === "number" && Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const filled = Math.round(value * width);
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}

/**
 * Characters that end a line or steer a terminal: C0 and C1 controls (ESC, CSI, NEL, …), DEL, the line and paragraph
 * separators, invisible format characters (bidi overrides). What the server sends (a client's cancel reason, a
 * model's text, ids) prints with these escaped, so it can neither forge lines nor send escape sequences.
 */
const CONTROL_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

function escapeCharacter(character) {
  const code = character.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Text for one line: every control character escaped (`\u001b`), newlines too. */
export function printable(text) {
  return String(text).replace(CONTROL_CHARACTERS, escapeCharacter);
}

/** Streamed text: control characters escaped, its newlines and tabs kept. */
function printableText(text) {
  return String(text).replace(CONTROL_CHARACTERS, (character) =>
    character === "\n" || character === "\t" ? character : escapeCharacter(character),
  );
}

/** Whitespace collapsed to single spaces, control characters escaped, cut to `max` characters (with an ellipsis). */
export function truncate(text, max) {
  const flat = printable(String(text).replace(/\s+/g, " ").trim());
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

const isPositiveInteger = (value) => typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
const nonEmptyString = (value) => typeof value === "string" && value.length > 0;

/**
 * Read one frame from the wire (JSON text or an already-parsed value). Returns the frame, with a chunk body sent
 * as a JSON string decoded, or `null` when it is not a readable `agent-tool-event` frame. Never throws.
 */
export function parseFrame(input) {
  try {
    const raw = typeof input === "string" ? JSON.parse(input) : input;
    if (!isObject(raw) || raw.type !== "agent-tool-event" || !isObject(raw.event)) return null;
    const event = raw.event;
    if (event.kind === "cleared") {
      if (!Array.isArray(event.runIds)) return null;
      return { ...raw, event: { kind: "cleared", runIds: event.runIds.filter(nonEmptyString) } };
    }
    if (!nonEmptyString(event.runId) || typeof event.kind !== "string") return null;
    if (event.kind === "chunk") {
      const body = readBody(event.body);
      if (body === null) return null;
      return { ...raw, event: { ...event, body } };
    }
    if (Object.hasOwn(TERMINAL_STATUS_OF_KIND, event.kind) || event.kind === "started") return raw;
    return null;
  } catch {
    return null;
  }
}

function readBody(body) {
  if (typeof body === "string") {
    try {
      const parsed = JSON.parse(body);
      return isObject(parsed) && typeof parsed.type === "string" ? parsed : null;
    } catch {
      return null;
    }
  }
  return isObject(body) && typeof body.type === "string" ? body : null;
}

function tagPrefix(agentType) {
  const letters = String(agentType ?? "")
    .replace(/[^A-Za-z]/g, "")
    .slice(0, 3)
    .toLowerCase();
  return letters.length > 0 ? letters : "run";
}

function ensureRun(state, runId, agentType) {
  let run = state.runs.get(runId);
  if (run === undefined) {
    const prefix = tagPrefix(agentType);
    const count = (state.tagCounters.get(prefix) ?? 0) + 1;
    state.tagCounters.set(prefix, count);
    run = {
      runId,
      agentType: agentType ?? null,
      tag: `[${prefix}${count}]`,
      status: "unknown",
      cursor: NO_FRAMES_ACCEPTED,
      pending: "",
      lastProgress: null,
      tools: new Map(),
      parentToolCallId: null,
      detached: false,
    };
    state.runs.set(runId, run);
  }
  return run;
}

const bodyLine = (run, text) => `  │ ${run.tag} ${text}`;

/** Buffered text of a run as complete lines (the rest of the buffer, if `all`, too). */
function drainText(run, all) {
  const lines = [];
  for (;;) {
    const newline = run.pending.indexOf("\n");
    if (newline >= 0) {
      lines.push(run.pending.slice(0, newline));
      run.pending = run.pending.slice(newline + 1);
      continue;
    }
    if (run.pending.length > TEXT_WRAP) {
      // Soft wrap at the last space inside the width, so long text still streams line by line.
      const space = run.pending.lastIndexOf(" ", TEXT_WRAP);
      const cut = space > 0 ? space : TEXT_WRAP;
      lines.push(run.pending.slice(0, cut));
      run.pending = run.pending.slice(cut).replace(/^ /, "");
      continue;
    }
    break;
  }
  if (all && run.pending.length > 0) {
    lines.push(run.pending);
    run.pending = "";
  }
  return lines
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0)
    .map((line) => bodyLine(run, line));
}

function jsonPreview(value, max) {
  if (value === undefined) return "";
  try {
    return truncate(JSON.stringify(value) ?? "", max);
  } catch {
    return "…";
  }
}

function progressText(data) {
  const fraction = typeof data.fraction === "number" && Number.isFinite(data.fraction) ? data.fraction : undefined;
  const message = typeof data.message === "string" && data.message.length > 0 ? data.message : undefined;
  const phase = typeof data.phase === "string" && data.phase.length > 0 ? data.phase : undefined;
  const parts = [];
  if (fraction !== undefined) {
    parts.push(progressBar(fraction), `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`);
  } else {
    parts.push("…");
  }
  if (message !== undefined) parts.push(truncate(message, PREVIEW));
  else if (phase !== undefined) parts.push(`(${truncate(phase, PREVIEW)})`);
  return parts.join(" ");
}

/** Lines for one chunk body of a child run (text is buffered into whole lines). */
function renderChildChunk(run, body) {
  const data = isObject(body.data) ? body.data : {};
  switch (body.type) {
    case "text-delta":
      if (typeof body.delta !== "string") return [];
      run.pending += printableText(body.delta);
      return drainText(run, false);
    case "text-end":
      return drainText(run, true);
    case "data-agent-progress": {
      const line = progressText(data);
      if (line === run.lastProgress) return [];
      run.lastProgress = line;
      return [...drainText(run, true), bodyLine(run, line)];
    }
    case "data-agent-milestone": {
      const name = nonEmptyString(data.milestone)
        ? data.milestone
        : nonEmptyString(data.name)
          ? data.name
          : "milestone";
      const message = nonEmptyString(data.message) ? ` — ${truncate(data.message, PREVIEW)}` : "";
      return [...drainText(run, true), bodyLine(run, `◆ ${truncate(name, PREVIEW)}${message}`)];
    }
    case "data-agent-approval":
      return [...drainText(run, true), bodyLine(run, approvalLine(data))];
    case "tool-input-available": {
      const name = nonEmptyString(body.toolName) ? printable(body.toolName) : "tool";
      if (nonEmptyString(body.toolCallId)) run.tools.set(body.toolCallId, name);
      return [...drainText(run, true), bodyLine(run, `→ tool ${name}(${jsonPreview(body.input, PREVIEW)})`)];
    }
    case "tool-output-available": {
      const name = run.tools.get(body.toolCallId) ?? "tool";
      return [...drainText(run, true), bodyLine(run, `← ${name}: ${jsonPreview(body.output, PREVIEW)}`)];
    }
    case "tool-output-error":
    case "tool-input-error": {
      const name =
        run.tools.get(body.toolCallId) ?? (nonEmptyString(body.toolName) ? printable(body.toolName) : "tool");
      return [...drainText(run, true), bodyLine(run, `✗ ${name}: ${truncate(body.errorText ?? "failed", SUMMARY)}`)];
    }
    case "error":
      return [...drainText(run, true), bodyLine(run, `! ${truncate(body.errorText ?? "error", SUMMARY)}`)];
    default:
      return [];
  }
}

/** One line for an approval's state: who asks for what while it waits, then how it was answered. */
export function approvalLine(approval) {
  const tool = nonEmptyString(approval.toolName) ? printable(approval.toolName) : "a tool";
  const path = Array.isArray(approval.path) ? approval.path : [];
  const asker =
    path.length > 0 ? ` by ${path.map((node) => printable(String(node?.agentType ?? "?"))).join(" › ")}` : "";
  const reason = nonEmptyString(approval.reason) ? `: ${truncate(approval.reason, SUMMARY)}` : "";
  switch (approval.status) {
    case "pending":
      return `⏸ approval asked${asker}: ${tool}(${jsonPreview(approval.input, PREVIEW)})`;
    case "approved":
      return `✓ approved: ${tool}`;
    case "expired":
      return `⌛ expired: ${tool}${reason}`;
    default:
      return `✗ denied: ${tool}${reason}`;
  }
}

function lifecycleLine(run, event) {
  const name = printable(run.agentType ?? "run");
  switch (event.kind) {
    case "started": {
      const preview = nonEmptyString(event.inputPreview) ? ` — ${truncate(event.inputPreview, PREVIEW)}` : "";
      return `  ┌ ${run.tag} ${name} (${printable(run.runId)}) started${preview}`;
    }
    case "finished": {
      const summary = nonEmptyString(event.summary) ? truncate(event.summary, SUMMARY) : "(no summary)";
      return `  └ ${run.tag} finished: ${summary}`;
    }
    case "error":
      return `  └ ${run.tag} error: ${truncate(event.error ?? "unknown error", SUMMARY)}`;
    case "aborted":
      return `  └ ${run.tag} aborted${nonEmptyString(event.error) ? `: ${truncate(event.error, SUMMARY)}` : ""}`;
    case "interrupted": {
      const details = [event.reason, event.childStillRunning === true ? "child still running" : null]
        .filter(nonEmptyString)
        .map(printable)
        .join(", ");
      const error = nonEmptyString(event.error) ? `: ${truncate(event.error, SUMMARY)}` : "";
      return `  └ ${run.tag} interrupted${details ? ` (${details})` : ""}${error}`;
    }
    default:
      return null;
  }
}

/**
 * Whether the run accepts the frame, by the protocol's rule (its cursor moves on when it does). A sequence or revision
 * that is not a positive integer counts as absent.
 */
function accept(run, frame) {
  const { sequence, revision, ...rest } = frame;
  const checked = {
    ...rest,
    ...(isPositiveInteger(sequence) ? { sequence } : {}),
    ...(isPositiveInteger(revision) ? { revision } : {}),
  };
  const { accepted, cursor } = acceptAgentToolFrame(run.cursor, checked);
  run.cursor = cursor;
  return accepted;
}

/** Apply a lifecycle event to a run; returns whether it was newer than what the run holds. */
function applyLifecycle(run, frame) {
  if (!accept(run, frame)) return false;
  const event = frame.event;
  if (event.kind === "started") {
    if (nonEmptyString(event.agentType)) run.agentType = event.agentType;
    if (event.detached === true) run.detached = true;
  }
  run.status = run.cursor.status;
  return true;
}

/**
 * The lines to print for one frame. Frames marked `replay: true` update the state (tags, cursors, statuses) but
 * print nothing unless `options.replay` is set. Frames are applied by the protocol's rule (`acceptAgentToolFrame`:
 * chunks once per `(runId, sequence)` and never when a step reset voided them, lifecycle frames only when their
 * revision is newer), and frames for cleared runs are ignored. Never throws.
 *
 * @param {ReturnType<typeof createRenderState>} state
 * @param {unknown} input a frame (JSON text or parsed)
 * @param {{ replay?: boolean }} [options]
 * @returns {string[]}
 */
export function renderFrame(state, input, options = {}) {
  try {
    const frame = parseFrame(input);
    if (frame === null) return [];
    const silent = frame.replay === true && options.replay !== true;
    const event = frame.event;
    if (event.kind === "cleared") {
      const lines = [];
      for (const runId of event.runIds) {
        const run = state.runs.get(runId);
        if (run !== undefined) {
          lines.push(...drainText(run, true));
          state.runs.delete(runId);
        }
        state.cleared.add(runId);
      }
      if (silent || event.runIds.length === 0) return [];
      const count = event.runIds.length;
      return [...lines, `  ✕ cleared ${count} run${count === 1 ? "" : "s"}`];
    }
    if (state.cleared.has(event.runId)) return [];
    const run = ensureRun(state, event.runId, event.kind === "started" ? event.agentType : undefined);
    if (nonEmptyString(frame.parentToolCallId)) run.parentToolCallId = frame.parentToolCallId;
    if (event.kind === "chunk") {
      if (!accept(run, frame)) return [];
      if (run.status === "unknown") run.status = "running";
      return silent ? [] : renderChildChunk(run, event.body);
    }
    if (!applyLifecycle(run, frame) || silent) return [];
    const line = lifecycleLine(run, event);
    const flushed = event.kind === "started" ? [] : drainText(run, true);
    return line === null ? flushed : [...flushed, line];
  } catch {
    return [];
  }
}

/**
 * What to print for one chunk of the assistant's own reply: `text` to write as is (streaming deltas) and whole
 * `lines` (its tool calls, errors). An `error` chunk is also remembered in `state.chatError`. Never throws.
 *
 * @returns {{ text: string, lines: string[] }}
 */
export function renderChatChunk(state, chunk) {
  try {
    const body = readBody(chunk);
    if (body === null) return { text: "", lines: [] };
    switch (body.type) {
      case "text-delta":
        return { text: typeof body.delta === "string" ? printableText(body.delta) : "", lines: [] };
      case "tool-input-available": {
        const name = nonEmptyString(body.toolName) ? printable(body.toolName) : "tool";
        if (nonEmptyString(body.toolCallId)) state.chatTools.set(body.toolCallId, name);
        return { text: "", lines: [`→ ${name}(${jsonPreview(body.input, PREVIEW)})`] };
      }
      case "tool-output-error":
      case "tool-input-error": {
        const name =
          state.chatTools.get(body.toolCallId) ?? (nonEmptyString(body.toolName) ? printable(body.toolName) : "tool");
        return { text: "", lines: [`✗ ${name}: ${truncate(body.errorText ?? "failed", SUMMARY)}`] };
      }
      case "error": {
        const errorText = truncate(body.errorText ?? "error", SUMMARY);
        state.chatError = errorText;
        return { text: "", lines: [`! error: ${errorText}`] };
      }
      default:
        return { text: "", lines: [] };
    }
  } catch {
    return { text: "", lines: [] };
  }
}

/**
 * The id `@agent-tools/detached` gives the message that tells the chat a background run ended:
 * `agent-tool:detached:<runId>:<status>`.
 */
const COMPLETION_MESSAGE_ID = /^agent-tool:detached:(.+):(completed|error|aborted|interrupted)$/;

/** The text parts of a `UIMessage`, joined. */
function messageText(message) {
  if (!isObject(message) || !Array.isArray(message.parts)) return "";
  return message.parts
    .filter((part) => isObject(part) && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("")
    .trim();
}

/**
 * Lines for a conversation frame of the event socket (`agent-chat-event`) about a background run: the message that
 * tells the chat the run ended (`» …`), then the answer of the turn the server starts for it. The run's entry in
 * `state.deliveries` goes `told`, then `answered`. Other frames print nothing. Never throws.
 *
 * @returns {string[]}
 */
export function renderChatEvent(state, input) {
  try {
    const raw = typeof input === "string" ? JSON.parse(input) : input;
    if (!isObject(raw) || raw.type !== "agent-chat-event" || !isObject(raw.event)) return [];
    const event = raw.event;
    switch (event.kind) {
      case "message": {
        const runId = COMPLETION_MESSAGE_ID.exec(isObject(event.message) ? String(event.message.id) : "")?.[1];
        if (runId === undefined || state.deliveries.has(runId)) return [];
        state.deliveries.set(runId, "told");
        return [`» ${printable(messageText(event.message))}`];
      }
      case "turn-started":
        if (event.origin === "server" && nonEmptyString(event.turnId)) state.serverTurns.add(event.turnId);
        return [];
      case "turn-ended": {
        if (!state.serverTurns.delete(event.turnId)) return [];
        const told = [...state.deliveries].filter(([, stage]) => stage === "told");
        for (const [runId] of told) state.deliveries.set(runId, "answered");
        const answer = printableText(messageText(event.message));
        return told.length > 0 && answer !== "" ? [answer] : [];
      }
      default:
        return [];
    }
  } catch {
    return [];
  }
}

/**
 * Lines for a run info from `GET …/runs` (used when a terminal frame was missed): a closing line when the info
 * shows a terminal status the state did not have yet. Never throws.
 */
export function renderRunInfo(state, info) {
  try {
    if (!isObject(info) || !nonEmptyString(info.runId) || state.cleared.has(info.runId)) return [];
    const run = ensureRun(state, info.runId, info.agentType);
    if (run.agentType === null && nonEmptyString(info.agentType)) run.agentType = info.agentType;
    if (!isTerminal(info.status) || isTerminal(run.status)) return [];
    run.status = info.status;
    const error = nonEmptyString(info.error) ? `: ${truncate(info.error, SUMMARY)}` : "";
    return [...drainText(run, true), `  └ ${run.tag} ${info.status}${error}`];
  } catch {
    return [];
  }
}

/** Print what is still buffered for every run (before exiting). */
export function flushAll(state) {
  return [...state.runs.values()].flatMap((run) => drainText(run, true));
}

/**
 * The `agentToolCursors` query value for the runs in `state`: per run, the highest sequence held with none missing
 * below it (a chunk held past a gap is asked for again) and the revision.
 */
export function encodeCursors(state) {
  return encodeAgentToolCursors(
    Object.fromEntries(
      [...state.runs.values()].map((run) => [
        run.runId,
        { sequence: run.cursor.contiguous, revision: run.cursor.revision },
      ]),
    ),
  );
}
