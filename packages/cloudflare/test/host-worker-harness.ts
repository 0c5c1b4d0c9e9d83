// The test host worker (workers/host-worker.ts: a Parent and its Echo child) in workerd, one per test.
import { fileURLToPath } from "node:url";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
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
        },
        persistDirectory: persist.path,
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
