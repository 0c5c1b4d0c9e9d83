import { fileURLToPath } from "node:url";
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import { MiniflareHost, type PersistDirectory } from "@agent-tools/workerd-harness/miniflare-host";

// What the workerd tests of the demo Worker share: its entry and bindings, booting it, and reading its frames.

/** The demo Worker's entry (TypeScript source), for `bundleWorker`. */
export const DEMO_WORKER = fileURLToPath(new URL("../../src/worker.ts", import.meta.url));

/** The demo Worker's Durable Object bindings: binding name → exported class. */
export const DEMO_DURABLE_OBJECTS = {
  ASSISTANT: "Assistant",
  RESEARCHER: "Researcher",
  SUMMARIZER: "Summarizer",
  IMPORTER: "Importer",
};

/** Boot the bundled demo Worker in workerd, its storage in `persist`, with these `env` bindings (e.g. `DEMO_PACE_MS`). */
export async function startDemoHost(
  persist: PersistDirectory,
  bindings: Record<string, unknown> = {},
): Promise<MiniflareHost> {
  return MiniflareHost.start({
    scriptPath: await bundleWorker(DEMO_WORKER),
    durableObjects: DEMO_DURABLE_OBJECTS,
    persistDirectory: persist.path,
    bindings,
  });
}

/** The WebSocket URL of `path` on the running host. */
export const demoWsUrl = (host: MiniflareHost, path: string) =>
  new URL(path, host.url.toString().replace(/^http/, "ws")).toString();

/** The agent-tool event frames among the messages a socket received. */
export const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");

/** The run a frame belongs to (`""` for a frame without one, e.g. `cleared`). */
export const runIdOf = (frame: AgentToolEventFrame) => ("runId" in frame.event ? frame.event.runId : "");

/** The agent-tool event frames of one run among the messages a socket received. */
export const framesOfRun = (messages: unknown[], runId: string) =>
  agentFrames(messages).filter((frame) => runIdOf(frame) === runId);

/** True for an event kind that ends a run (including `interrupted`). */
export const isTerminalKind = (kind: string) => ["finished", "error", "aborted", "interrupted"].includes(kind);

/** A frame without its `replay` flag, to compare a replayed frame with the live one. */
export const withoutReplay = ({ replay: _replay, ...frame }: AgentToolEventFrame) => frame;

/**
 * The AI SDK WebSocketChatTransport's `send` request for one user message. `requestId` defaults to
 * `request-${chatId}`; the user message's id defaults to `user-${requestId}` when a `requestId` is given, else to
 * `user-${chatId}`.
 */
export function chatSendRequest(
  text: string,
  chatId: string,
  requestId?: string,
  userMessageId = `user-${requestId ?? chatId}`,
) {
  return {
    type: "send",
    requestId: requestId ?? `request-${chatId}`,
    id: chatId,
    trigger: "submit-message",
    messageId: undefined,
    messages: [{ id: userMessageId, role: "user", parts: [{ type: "text", text }] }],
    headers: {},
    body: {},
    metadata: null,
  };
}
