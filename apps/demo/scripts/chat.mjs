#!/usr/bin/env node
// `pnpm demo:chat "research cats"`: send one message to the demo's Assistant and print its reply as it streams,
// with each child run's timeline (text, tool calls, progress, milestones, result) indented below.
//
// Options: --url <origin> (default http://127.0.0.1:$PORT, PORT defaulting to 8787 as for `pnpm demo`), --chat <name>
// (default "default"), --replay (also print retained runs replayed on connect), --timeout <seconds> (default 120),
// --approve / --deny [--reason <text>] (answer every approval a child asks for while it runs; without them a terminal
// is asked, and a non-interactive run waits for an answer from the page).
//
// Exits 0 once the reply has ended and every run started during it is terminal, and, for a run started in the
// background, once its completion has been told to the chat and the Assistant has answered it (both printed; at
// most 30 s after everything else, for a run that tells the chat nothing); 1 on an error frame, a connection error,
// or the timeout.

import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import "./source-imports.mjs";

// After source-imports.mjs: the renderer imports the client package (from its sources).
const {
  approvalLine,
  createRenderState,
  encodeCursors,
  flushAll,
  isTerminal,
  printable,
  renderChatChunk,
  renderChatEvent,
  renderFrame,
  renderRunInfo,
} = await import("./render-frames.mjs");
const { AGENT_TOOL_BATCH_PARAM, AGENT_TOOL_BATCH_VERSION, unpackAgentToolMessage } = await import(
  "@agent-tools/core-runs/protocol"
);

const DEFAULT_PORT = 8787;

/** Where `pnpm demo` listens: 127.0.0.1 and PORT (default 8787), as demo.mjs does. */
function defaultUrl(env = process.env) {
  const port = env.PORT === undefined || env.PORT === "" ? DEFAULT_PORT : Number(env.PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    process.stderr.write(`demo:chat: PORT must be a port number, got ${env.PORT}\n`);
    process.exit(1);
  }
  return `http://127.0.0.1:${port}`;
}

const DEFAULT_URL = defaultUrl();
const USAGE =
  `usage: pnpm demo:chat "message" [--url ${DEFAULT_URL}] [--chat default] [--replay] [--timeout 120]\n` +
  "                      [--approve | --deny [--reason <text>]]\n" +
  "  --url: the demo's address (default: 127.0.0.1 and PORT, 8787 unless set, as for pnpm demo)\n" +
  "  --approve / --deny: answer every tool approval a child asks for (default: ask in a terminal, else wait)";
const POLL_MS = 1_000;
const RECONNECT_MS = 500;
/** How long to wait, once the rest is done, for a background run's completion to reach the chat and be answered. */
const DELIVERY_WAIT_MS = 30_000;
const MAX_RECONNECTS = 5;

function parseCli(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: "string", default: DEFAULT_URL },
        chat: { type: "string", default: "default" },
        replay: { type: "boolean", default: false },
        timeout: { type: "string", default: "120" },
        approve: { type: "boolean", default: false },
        deny: { type: "boolean", default: false },
        reason: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const text = parsed.positionals.join(" ").trim();
  if (text === "") fail(`a message is required\n${USAGE}`);
  const timeoutSeconds = Number(parsed.values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) fail(`--timeout must be a positive number of seconds`);
  let origin;
  try {
    origin = new URL(parsed.values.url);
  } catch {
    fail(`--url is not a URL: ${parsed.values.url}`);
  }
  const { approve, deny, reason } = parsed.values;
  if (approve && deny) fail(`--approve and --deny cannot both be given\n${USAGE}`);
  if (reason !== undefined && !deny) fail(`--reason goes with --deny\n${USAGE}`);
  const answer = approve ? { approved: true } : deny ? { approved: false, ...(reason ? { reason } : {}) } : null;
  return { text, origin, chat: parsed.values.chat, replay: parsed.values.replay, timeoutSeconds, answer };
}

// ---- output: assistant text streams raw; whole lines start on a fresh line ----

let atLineStart = true;

// A closed pipe (`… | head`) ends the output quietly.
process.stdout.on("error", (error) => process.exit(error?.code === "EPIPE" ? 0 : 1));

function writeText(text) {
  if (text.length === 0) return;
  process.stdout.write(text);
  atLineStart = text.endsWith("\n");
}

function writeLines(lines) {
  if (lines.length === 0) return;
  if (!atLineStart) process.stdout.write("\n");
  process.stdout.write(`${lines.join("\n")}\n`);
  atLineStart = true;
}

function fail(message) {
  if (!atLineStart) process.stdout.write("\n");
  process.stderr.write(`demo:chat: ${message}\n`);
  process.exit(1);
}

// ---- main ----

const options = parseCli(process.argv.slice(2));
const agentPath = `/agents/assistant/${encodeURIComponent(options.chat)}`;
const httpUrl = (path) => new URL(`${agentPath}${path}`, options.origin).toString();
const wsUrl = (path) => {
  const url = new URL(`${agentPath}${path}`, options.origin);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url;
};
const notRunning = `is \`pnpm demo\` running at ${options.origin.origin}? (point at it with --url, or PORT)`;

const state = createRenderState();
/** Runs started while this request was in flight: the exit waits for them. */
const ours = new Set();
let runsBefore = new Set();
let chatEnded = false;
let finishing = false;
let eventsSocket = null;
let chatSocket = null;

const overall = setTimeout(() => {
  const live = [...ours].filter(isLive);
  writeLines(flushAll(state));
  const waitingFor = !chatEnded
    ? "the reply to end"
    : live.length > 0
      ? `${live.length} run(s): ${live.join(", ")}`
      : `the answer to the completion of ${[...ours].filter(awaitsDelivery).join(", ")}`;
  fail(`timed out after ${options.timeoutSeconds} s waiting for ${waitingFor}`);
}, options.timeoutSeconds * 1000);

async function getJson(path) {
  let response;
  try {
    response = await fetch(httpUrl(path));
  } catch (error) {
    fail(`cannot reach ${options.origin.origin} (${describeError(error)}) — ${notRunning}`);
  }
  if (!response.ok)
    fail(`GET ${agentPath}${path} → HTTP ${response.status}: ${printable(truncateBody(await response.text()))}`);
  try {
    return await response.json();
  } catch {
    fail(`GET ${agentPath}${path} did not return JSON`);
  }
}

function describeError(error) {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause && typeof cause === "object" && "code" in cause && typeof cause.code === "string") return cause.code;
  return cause instanceof Error ? cause.message : String(cause);
}

const truncateBody = (text) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

/** Open a WebSocket and resolve once it is open; fail with a clear message otherwise. */
function openSocket(url, label) {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    const onError = (error) =>
      fail(`${label} socket: cannot connect to ${url.origin} (${describeError(error)}) — ${notRunning}`);
    socket.once("error", onError);
    socket.once("unexpected-response", (_request, response) => {
      fail(`${label} socket: ${url.pathname} answered HTTP ${response.statusCode} instead of a WebSocket upgrade`);
    });
    socket.once("open", () => {
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

/** A message of the events socket: one frame, or a batch of them (a JSON array, SPEC §6), each rendered in order. */
function onEventMessage(data, renderReplay) {
  for (const message of unpackAgentToolMessage(data.toString())) onEventFrame(message, renderReplay);
  checkDone();
}

function onEventFrame(input, renderReplay) {
  let startedLive = null;
  let asked = null;
  try {
    const frame = typeof input === "string" ? JSON.parse(input) : input;
    if (frame?.event?.kind === "started" && frame.replay !== true && typeof frame.event.runId === "string") {
      startedLive = frame.event.runId;
    }
    const body = frame?.event?.kind === "chunk" && frame.replay !== true ? frame.event.body : null;
    if (body?.type === "data-agent-approval" && body.data?.status === "pending") {
      asked = { runId: frame.event.runId, approval: body.data };
    }
  } catch {
    // renderFrame skips what it cannot read
  }
  writeLines([...renderFrame(state, input, { replay: renderReplay }), ...renderChatEvent(state, input)]);
  if (startedLive !== null && state.runs.has(startedLive)) ours.add(startedLive);
  if (asked !== null && ours.has(asked.runId)) void answerApproval(asked.runId, asked.approval);
}

// ---- approvals: a child's tool waits for a yes or no ----

const approvalsSeen = new Set();

/** Answer an approval a run of ours asks for: by --approve/--deny, else in a terminal; otherwise the page answers. */
async function answerApproval(runId, approval) {
  if (approvalsSeen.has(approval.approvalId)) return;
  approvalsSeen.add(approval.approvalId);
  let answer = options.answer;
  if (answer === null && process.stdin.isTTY) {
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const reply = await prompt.question(`${approvalLine(approval)} — approve? [y/N] `);
    prompt.close();
    atLineStart = true;
    answer = /^y(es)?$/i.test(reply.trim()) ? { approved: true } : { approved: false, reason: "Denied from demo:chat" };
  }
  if (answer === null) {
    writeLines(["  (waiting for an answer on the page; or run demo:chat with --approve or --deny)"]);
    return;
  }
  const path = `/approve/${encodeURIComponent(runId)}/${encodeURIComponent(approval.approvalId)}`;
  let response;
  try {
    response = await fetch(httpUrl(path), { method: "POST", body: JSON.stringify(answer) });
  } catch (error) {
    fail(`POST ${agentPath}${path}: ${describeError(error)}`);
  }
  if (!response.ok) fail(`POST ${agentPath}${path} → HTTP ${response.status}: ${truncateBody(await response.text())}`);
}

let reconnects = 0;

async function connectEvents(cursors) {
  const url = wsUrl("");
  // Batches: a burst of frames in one message (onEventMessage reads both forms).
  url.searchParams.set(AGENT_TOOL_BATCH_PARAM, AGENT_TOOL_BATCH_VERSION);
  if (cursors !== null) url.searchParams.set("agentToolCursors", cursors);
  const socket = await openSocket(url, "events");
  eventsSocket = socket;
  // On a reconnect the cursors limit replay to what is newer, so replayed frames are news: print them.
  const renderReplay = options.replay || cursors !== null;
  socket.on("message", (data) => onEventMessage(data, renderReplay));
  socket.on("error", () => undefined); // "close" follows
  socket.on("close", () => {
    if (finishing) return;
    if (reconnects >= MAX_RECONNECTS) fail(`events socket closed and did not reconnect — ${notRunning}`);
    reconnects += 1;
    setTimeout(() => {
      connectEvents(encodeCursors(state)).catch((error) => fail(`events socket: ${describeError(error)}`));
    }, RECONNECT_MS);
  });
}

function onChatFrame(data, requestId) {
  let frame;
  try {
    frame = JSON.parse(data.toString());
  } catch {
    return;
  }
  if (frame === null || typeof frame !== "object" || frame.requestId !== requestId) {
    // An error for a request the server could not read carries an empty requestId.
    if (frame?.type === "error" && frame.requestId === "")
      fail(`chat error: ${printable(frame.errorText ?? "unknown error")}`);
    return;
  }
  switch (frame.type) {
    case "chunk": {
      const { text, lines } = renderChatChunk(state, frame.chunk);
      writeText(text);
      writeLines(lines);
      return;
    }
    case "end":
      chatEnded = true;
      if (!atLineStart) writeText("\n");
      void discoverRuns().then(checkDone);
      return;
    case "error":
      writeLines(flushAll(state));
      fail(`chat error: ${printable(frame.errorText ?? "unknown error")}`);
      return;
    default:
      return;
  }
}

/** A run of ours still being waited for (a cleared run is not). */
const isLive = (runId) => !state.cleared.has(runId) && !isTerminal(state.runs.get(runId)?.status);

/** How many polls in a row /runs showed a run terminal while no terminal frame had arrived. */
const terminalPolls = new Map();

/**
 * Runs that exist now but did not before this request are ours too (their started frame may still be in flight).
 * A run /runs shows terminal for a few polls in a row while no terminal frame arrived is closed from /runs.
 */
async function discoverRuns() {
  let infos;
  try {
    const response = await fetch(httpUrl("/runs"));
    if (!response.ok) return;
    infos = await response.json();
  } catch {
    return;
  }
  if (!Array.isArray(infos)) return;
  for (const info of infos) {
    if (typeof info?.runId !== "string" || runsBefore.has(info.runId)) continue;
    ours.add(info.runId);
    if (!isLive(info.runId) || !isTerminal(info.status)) {
      terminalPolls.delete(info.runId);
      continue;
    }
    const count = (terminalPolls.get(info.runId) ?? 0) + 1;
    terminalPolls.set(info.runId, count);
    if (count >= 3 || eventsSocket?.readyState !== WebSocket.OPEN) writeLines(renderRunInfo(state, info));
  }
}

/** A background run of ours whose completion the chat has not answered yet. */
const awaitsDelivery = (runId) =>
  state.runs.get(runId)?.detached === true && !state.cleared.has(runId) && state.deliveries.get(runId) !== "answered";

/** Set once the bounded wait for deliveries is over. */
let deliveryWait = null;
let deliveryWaitOver = false;

function checkDone() {
  if (finishing || !chatEnded) return;
  if ([...ours].some(isLive)) return;
  const undelivered = [...ours].filter(awaitsDelivery);
  if (undelivered.length > 0 && !deliveryWaitOver) {
    deliveryWait ??= setTimeout(() => {
      deliveryWaitOver = true;
      writeLines([`(no answer to the completion of ${undelivered.join(", ")} within ${DELIVERY_WAIT_MS / 1000} s)`]);
      checkDone();
    }, DELIVERY_WAIT_MS);
    return;
  }
  finishing = true;
  clearTimeout(deliveryWait);
  writeLines(flushAll(state));
  if (!atLineStart) writeText("\n");
  clearTimeout(overall);
  clearInterval(poll);
  eventsSocket?.close();
  chatSocket?.close();
  if (state.chatError !== null) fail(`the reply ended with an error: ${state.chatError}`);
  process.exit(0);
}

// Polls /runs after the reply ends, to find runs whose started frame has not arrived yet.
const poll = setInterval(() => {
  if (chatEnded && !finishing) void discoverRuns().then(checkDone);
}, POLL_MS);

const history = await getJson("/messages");
if (!Array.isArray(history)) fail(`GET ${agentPath}/messages did not return an array`);
const runsNow = await getJson("/runs");
runsBefore = new Set(
  Array.isArray(runsNow) ? runsNow.map((run) => run?.runId).filter((id) => typeof id === "string") : [],
);

await connectEvents(null);
chatSocket = await openSocket(wsUrl("/chat"), "chat");
const requestId = randomUUID();
chatSocket.on("message", (data) => onChatFrame(data, requestId));
chatSocket.on("close", () => {
  if (!finishing && !chatEnded) fail(`chat socket closed before the reply ended — ${notRunning}`);
});
chatSocket.on("error", () => undefined); // "close" follows

const message = { id: randomUUID(), role: "user", parts: [{ type: "text", text: options.text }] };
chatSocket.send(
  JSON.stringify({
    type: "send",
    requestId,
    id: options.chat,
    trigger: "submit-message",
    messageId: undefined,
    messages: [...history, message],
    headers: {},
    body: {},
    metadata: null,
  }),
);
