import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const BASE = "/agents/parent/durable-calls";

type RunInfo = { runId: string; agentType: string; status: string };
type Message = { id: string; role: string; parts: Array<{ type: string; text?: string; toolCallId?: string }> };

/** The last text part of an answer (what it ended with; what the turn spent is stored after it). */
const lastText = (message: Message | undefined) => message?.parts.filter((part) => part.type === "text").at(-1);
type ChatFrame = { type: string; requestId?: string };

const start = hostWorkerPerTest("agent-tools-tool-calls-");

function send(chat: RecordingSocket, text: string) {
  chat.send({
    type: "send",
    requestId: "r-1",
    id: "durable-calls",
    trigger: "submit-message",
    messages: [{ id: "u-1", role: "user", parts: [{ type: "text", text }] }],
    headers: {},
    body: {},
    metadata: null,
  });
}

const ended = (requestId: string) => (messages: unknown[]) =>
  (messages as ChatFrame[]).some(
    (frame) => frame.requestId === requestId && ["end", "error", "no-active"].includes(frame.type),
  );

/**
 * Send "hello", kill the runtime while the host holds the turn (the model has decided its tool call; the host has read
 * none of it), start it again with `bindings`, and follow the resumed turn to its end as a client that comes back.
 * Resolves the ids of the stored calls of `toolName`.
 */
async function killHeldTurn(host: MiniflareHost, toolName: string, bindings: Record<string, string>) {
  const chat = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
  send(chat, "hello");
  await host.fetchJson(`${BASE}/test/held`);
  await host.killAndRestart(bindings);
  chat.close();

  const events = await RecordingSocket.open(wsUrl(host, BASE));
  const resumed = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
  resumed.send({ type: "resume", requestId: "r-2", id: "durable-calls", headers: {}, body: {} });
  await resumed.waitFor(ended("r-2"), 30_000);
  resumed.close();
  events.close();

  const messages = await host.fetchJson<Message[]>(`${BASE}/messages`);
  const toolCallIds = messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === `tool-${toolName}` && part.toolCallId ? [part.toolCallId] : [])),
  );
  return { messages, toolCallIds };
}

it("a turn killed before the host stored its agent tool call starts one child, not two", async () => {
  const host = await start({ PARENT_HOLD_TURN: "1" });
  const { messages, toolCallIds } = await killHeldTurn(host, "echo", {});
  expect(toolCallIds).toHaveLength(1);
  const runs = await host.fetchJson<RunInfo[]>(`${BASE}/runs`);
  expect(runs).toEqual([expect.objectContaining({ runId: `agent-tool:${toolCallIds[0]}`, status: "completed" })]);
  expect(lastText(messages.at(-1))).toMatchObject({ type: "text", text: "The echo said: #1 hello" });
});

it("a plain tool of the turn's tools runs only once its call is stored: killed before, it runs once, for the stored call", async () => {
  const host = await start({ PARENT_HOLD_TURN: "1", PARENT_TOOL: "note" });
  const { messages, toolCallIds } = await killHeldTurn(host, "note", { PARENT_TOOL: "note" });
  expect(toolCallIds).toHaveLength(1);
  // The tool's effect happened once, for the call the conversation holds (not for the call the crash lost).
  expect(await host.fetchJson(`${BASE}/test/notes`)).toEqual([{ tool_call_id: toolCallIds[0], text: "hello" }]);
  expect(lastText(messages.at(-1))).toMatchObject({ type: "text", text: "The note said: noted hello" });
});

it("a parent killed in the middle of a turn wakes itself and ends the turn, with no client and no request", async () => {
  const wake = { PARENT_WAKE_MS: "300" };
  const host = await start({ ...wake, PARENT_HOLD_TURN: "1" });
  const chat = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
  send(chat, "hello");
  await host.fetchJson(`${BASE}/test/held`);
  await host.killAndRestart(wake);
  chat.close();

  // Nothing touches the parent: only its own alarm can start it again, resume the turn and store the answer. The
  // probe answers once the parent, woken by an alarm, holds an answer (a parent that never wakes fails by the bound).
  const woke = await fetch(new URL("/probe/wait?event=answered", host.url), { signal: AbortSignal.timeout(20_000) });
  expect(await woke.json()).toEqual({ event: "answered" });

  const messages = await host.fetchJson<Message[]>(`${BASE}/messages`);
  expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  expect(lastText(messages.at(-1))).toMatchObject({ type: "text", text: "The echo said: #1 hello" });
  const runs = await host.fetchJson<RunInfo[]>(`${BASE}/runs`);
  expect(runs).toEqual([expect.objectContaining({ status: "completed" })]);
});
