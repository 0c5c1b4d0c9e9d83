// An agent tool of the parent's conversation starts its child only once its tool call is stored. The AI SDK runs a
// step's tools as soon as the model has decided them, whether or not the host has read (and stored) the chunks that
// say so; if the runtime dies in between, the resumed turn knows no such call, decides a new one, and would start a
// second child for it. Here the host reads nothing of the turn (the Parent's PARENT_HOLD_TURN fault point), the
// runtime is killed, and after the restart the conversation and the runs must hold one tool call and one child run.
import { fileURLToPath } from "node:url";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { afterEach, expect, it } from "vitest";

const HOST_WORKER = fileURLToPath(new URL("./workers/host-worker.ts", import.meta.url));
const BASE = "/agents/parent/durable-calls";

type RunInfo = { runId: string; agentType: string; status: string };
type Message = { id: string; role: string; parts: Array<{ type: string; text?: string; toolCallId?: string }> };
type ChatFrame = { type: string; requestId?: string };

let persist: PersistDirectory | undefined;
let host: MiniflareHost | undefined;

afterEach(async () => {
  await host?.dispose();
  await persist?.remove();
  host = undefined;
  persist = undefined;
});

const wsUrl = (running: MiniflareHost, path: string) =>
  new URL(path, running.url.toString().replace(/^http/, "ws")).toString();

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

it("a turn killed before the host stored its agent tool call starts one child, not two", async () => {
  persist = await createPersistDirectory("agent-tools-tool-calls-");
  host = await MiniflareHost.start({
    scriptPath: await bundleWorker(HOST_WORKER),
    durableObjects: { PARENT: "Parent", ECHO: "Echo" },
    persistDirectory: persist.path,
    bindings: { PARENT_HOLD_TURN: "1" },
  });
  const chat = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
  send(chat, "hello");
  // The host holds the turn: the model has decided its `echo` call; the host has read none of it.
  await host.fetchJson(`${BASE}/test/held`);
  await host.killAndRestart({});
  chat.close();

  // A client comes back and follows the resumed turn to its end.
  const events = await RecordingSocket.open(wsUrl(host, BASE));
  const resumed = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
  resumed.send({ type: "resume", requestId: "r-2", id: "durable-calls", headers: {}, body: {} });
  await resumed.waitFor(ended("r-2"), 30_000);
  resumed.close();
  events.close();

  const messages = await host.fetchJson<Message[]>(`${BASE}/messages`);
  const toolCallIds = messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === "tool-echo" && part.toolCallId ? [part.toolCallId] : [])),
  );
  expect(toolCallIds).toHaveLength(1);
  const runs = await host.fetchJson<RunInfo[]>(`${BASE}/runs`);
  expect(runs).toEqual([expect.objectContaining({ runId: `agent-tool:${toolCallIds[0]}`, status: "completed" })]);
  expect(messages.at(-1)?.parts.at(-1)).toMatchObject({ type: "text", text: "The echo said: #1 hello" });
});
