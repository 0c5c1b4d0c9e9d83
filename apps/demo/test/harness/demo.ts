import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  AGENT_MILESTONE_PART,
  type AgentToolEventFrame,
  readStepResetChunk,
  voidedRanges,
} from "@agent-tools/core-runs/protocol";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, beforeAll, inject } from "vitest";
import type { DemoConfig } from "../../scripts/demo-config.mjs";
import { WEB_ASSETS_BINDING, type WebAssets, webAssetsDirectory } from "../../web/build.mjs";

// What the workerd tests of the demo Worker share: its settings (from wrangler.jsonc, as `pnpm demo` and
// `wrangler deploy` read them), booting it, and reading its frames.

declare module "vitest" {
  export interface ProvidedContext {
    /** wrangler.jsonc as Miniflare options, read once per run (test/global-setup.ts). */
    demoConfig: DemoConfig;
  }
}

/**
 * The demo Worker's settings from wrangler.jsonc (scripts/demo-config.mjs): read once by the demo project's global
 * set-up (wrangler takes a second or so to load), or here when that did not run.
 */
export async function demoConfig(): Promise<DemoConfig> {
  const provided = inject("demoConfig") as DemoConfig | undefined;
  if (provided) return provided;
  const { readDemoConfig } = await import("../../scripts/demo-config.mjs");
  return readDemoConfig();
}

/** The demo Worker's Durable Object bindings: binding name → exported class (all SQLite-backed). */
export async function demoDurableObjects(): Promise<Record<string, string>> {
  const { durableObjects } = await demoConfig();
  return Object.fromEntries(Object.entries(durableObjects).map(([binding, { className }]) => [binding, className]));
}

export type DemoHostOptions = {
  /**
   * The built page to serve (e.g. `await buildWebPage({ outDir })` from web/build.mjs), as wrangler.jsonc's static
   * assets: in front of the Worker, `/agents/*` excepted. Default: none (a folder that does not exist), so `/`
   * answers the Worker's "page not built" hint.
   */
  assetsDirectory?: string;
};

/**
 * Boot the bundled demo Worker in workerd with the settings of wrangler.jsonc, its storage in `persist`, with these
 * `env` bindings (e.g. `DEMO_PACE_MS`) over the config's `vars`.
 *
 * Former form, still accepted: the page as a `WEB_ASSETS` binding, `{ [WEB_ASSETS_BINDING]: await readWebAssets(dir) }`
 * (web/build.mjs): it is served from `dir` as `assetsDirectory` would be, and is not passed to the Worker.
 */
export async function startDemoHost(
  persist: PersistDirectory,
  bindings: Record<string, unknown> = {},
  options: DemoHostOptions = {},
): Promise<MiniflareHost> {
  const config = await demoConfig();
  const { [WEB_ASSETS_BINDING]: webAssets, ...workerBindings } = bindings;
  const assetsDirectory =
    options.assetsDirectory ??
    (webAssets ? await webAssetsFolder(webAssets as WebAssets, persist) : join(persist.path, "no-page"));
  return MiniflareHost.start({
    scriptPath: await bundleWorker(config.main),
    compatibilityDate: config.compatibilityDate,
    compatibilityFlags: config.compatibilityFlags,
    durableObjects: config.durableObjects,
    persistDirectory: persist.path,
    bindings: { ...config.bindings, ...workerBindings },
    assets: { ...config.assets, directory: assetsDirectory },
  });
}

/**
 * One demo host for a whole test file, with `bindings` (see `startDemoHost`) on a fresh persistence folder: started
 * before the file's tests, disposed (its folder removed) after them. Returns the running host.
 */
export function demoHostPerFile(bindings: Record<string, unknown> = {}): () => MiniflareHost {
  let persist: PersistDirectory | undefined;
  let host: MiniflareHost | undefined;
  beforeAll(async () => {
    persist = await createPersistDirectory();
    host = await startDemoHost(persist, bindings);
  });
  afterAll(async () => {
    await host?.dispose();
    await persist?.remove();
  });
  return () => {
    if (!host) throw new Error("The demo host is not running (asked outside the file's tests)");
    return host;
  };
}

/**
 * Restart the host on the same storage with `bindings` over wrangler.jsonc's `vars` (as `startDemoHost` takes them),
 * in place of the bindings it had: e.g. to turn a test knob such as `DEMO_HOLD_AFTER` off across the restart.
 */
export async function restartDemoHost(host: MiniflareHost, bindings: Record<string, unknown>): Promise<void> {
  const config = await demoConfig();
  await host.restart({ ...config.bindings, ...bindings });
}

/**
 * The `DEMO_HOLD_AFTER` test knob (src/agents/test-holds.ts): let child run `runId` past one hold — the one it waits
 * at now, or else the next one it reaches.
 */
export async function releaseHold(host: MiniflareHost, runId: string): Promise<void> {
  await host.fetchJson(`/test/release-hold?runId=${encodeURIComponent(runId)}`, { method: "POST" });
}

/** The folder `readWebAssets` read `assets` from; any other such object is written out under `persist` first. */
async function webAssetsFolder(assets: WebAssets, persist: PersistDirectory): Promise<string> {
  const read = webAssetsDirectory(assets);
  if (read !== undefined) return read;
  const folder = join(persist.path, "web-assets");
  for (const [path, asset] of Object.entries(assets)) {
    const file = join(folder, ...path.split("/").filter((segment) => segment !== "" && segment !== ".."));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, asset.encoding === "base64" ? Buffer.from(asset.body, "base64") : asset.body);
  }
  return folder;
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

/**
 * The sequences a step reset among `frames` voids: the cut step of a turn that was resumed (milestones aside). A
 * replay leaves them out for a client that never held them; the reset stands for them.
 */
export function voidedSequences(frames: readonly AgentToolEventFrame[]): Set<number> {
  const voided = new Set<number>();
  for (const frame of frames) {
    const reset = frame.event.kind === "chunk" ? readStepResetChunk(frame.event.body) : null;
    if (!reset || frame.sequence === undefined) continue;
    // The reset's own rule: its `voids` ranges (what still streamed at the cut), else everything from `fromSequence`.
    for (const [from, until] of voidedRanges(reset, frame.sequence)) {
      for (let sequence = from; sequence < until; sequence += 1) voided.add(sequence);
    }
  }
  return voided;
}

/** True when the durable chunk frame `frame` is voided by a step reset among `frames` (a milestone never is). */
export const isVoidedIn = (frame: AgentToolEventFrame, frames: readonly AgentToolEventFrame[]) =>
  frame.sequence !== undefined &&
  !(frame.event.kind === "chunk" && frame.event.body.type === AGENT_MILESTONE_PART) &&
  voidedSequences(frames).has(frame.sequence);

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
