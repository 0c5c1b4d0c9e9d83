// The test host worker (workers/host-worker.ts: a Parent and its Echo child) in workerd, one per test.
import { fileURLToPath } from "node:url";
import type { AgentToolApproval, AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { afterEach } from "vitest";

const HOST_WORKER = fileURLToPath(new URL("./workers/host-worker.ts", import.meta.url));

/**
 * Returns `start(bindings)`, which runs the host worker on a fresh persistence folder (named from `prefix`); the
 * host a test started is disposed, and its folder removed, after that test. `start.persistPath()` is that folder.
 */
export function hostWorkerPerTest(
  prefix: string,
): ((bindings?: Record<string, string>) => Promise<MiniflareHost>) & { persistPath(): string } {
  let persist: PersistDirectory | undefined;
  let host: MiniflareHost | undefined;
  afterEach(async () => {
    await host?.dispose();
    await persist?.remove();
    host = undefined;
    persist = undefined;
  });
  const persistPath = () => {
    if (!persist) throw new Error("No host started in this test");
    return persist.path;
  };
  return Object.assign(
    async (bindings: Record<string, string> = {}) => {
      persist = await createPersistDirectory(prefix);
      host = await MiniflareHost.start({
        scriptPath: await bundleWorker(HOST_WORKER),
        durableObjects: {
          PARENT: "Parent",
          STATICS: "StaticsParent",
          WORKFLOW: "WorkflowParent",
          ECHO: "Echo",
          LOOKOUT: "Lookout",
          GAUGE: "Gauge",
          MIDDLE: "Middle",
          RELAY: "Relay",
          WRITER: "Writer",
          PROBE: "Probe",
          SPANS: "SpanLog",
        },
        persistDirectory: persist.path,
        // `request.signal` aborts when a client goes away (a post to a child's chat is then dropped before its turn).
        compatibilityFlags: ["nodejs_compat", "enable_request_signal"],
        bindings,
      });
      return host;
    },
    { persistPath },
  );
}

/** The WebSocket URL of `path` on a running host. */
export const wsUrl = (running: MiniflareHost, path: string) =>
  new URL(path, running.url.toString().replace(/^http/, "ws")).toString();

/** The chat socket's `send` frame for one user message `text` (message id `user-<requestId>`). */
export const chatSend = (requestId: string, text: string) => ({
  type: "send",
  requestId,
  id: "chat",
  trigger: "submit-message",
  messageId: undefined,
  messages: [{ id: `user-${requestId}`, role: "user", parts: [{ type: "text", text }] }],
  headers: {},
  body: {},
});

/** `text` as a request body stream (sent chunked, with no content-length), in 64 KiB chunks. */
export function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}

/** The approval states an events socket delivered (its `data-agent-approval` chunks), in order. */
export const approvalsIn = (messages: unknown[]): AgentToolApproval[] =>
  (messages as AgentToolEventFrame[]).flatMap((frame) => {
    if (frame.type !== "agent-tool-event" || frame.event.kind !== "chunk") return [];
    const body = frame.event.body as { type: string; data?: AgentToolApproval };
    return body.type === "data-agent-approval" && body.data ? [body.data] : [];
  });

/**
 * Send `text` in the conversation of parent `base` (its events and chat sockets opened first); resolves the sockets
 * and the first approval asked, once the events socket got it.
 */
export async function askUntilApproval(running: MiniflareHost, base: string, text: string) {
  const events = await RecordingSocket.open(wsUrl(running, base));
  const chat = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
  chat.send(chatSend("r1", text));
  await events.waitFor((messages) => approvalsIn(messages).length > 0, 30_000);
  return { events, chat, asked: approvalsIn(events.messages)[0] as AgentToolApproval };
}
