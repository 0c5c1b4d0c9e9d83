// One Worker in workerd through Miniflare, the calls the workloads make, a recording WebSocket client, and the
// resident size of the workerd process.
import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { Log, LogLevel, Miniflare } from "miniflare";
import WebSocket from "ws";

const COMPATIBILITY_DATE = "2026-04-20";
const COMPATIBILITY_FLAGS = ["nodejs_compat"];

export class WorkerHost {
  /** workerd processes already taken by a host of this process. */
  static #claimed = new Set();

  /**
   * @param {Miniflare} miniflare @param {URL} url @param {number} bootMs
   * @param {{ wsPath: string, sendsReplayDone?: boolean }} options
   */
  constructor(miniflare, url, bootMs, options) {
    this.miniflare = miniflare;
    this.origin = url.href.replace(/\/$/, "");
    this.bootMs = bootMs;
    this.wsPath = options.wsPath;
    /** Whether the target's parent ends a connect's replay with a `bench-replay-done` frame (the anchor's does not). */
    this.sendsReplayDone = options.sendsReplayDone ?? true;
    /** @type {number | null} */
    this.pid = null;
  }

  /**
   * @param {{ scriptPath: string, durableObjects: Record<string, { className: string, useSQLite: boolean }>,
   *   wsPath: string, sendsReplayDone?: boolean, persist?: string, verbose?: boolean, inspectorPort?: number }} options
   */
  static async start(options) {
    const miniflare = new Miniflare({
      modules: true,
      scriptPath: options.scriptPath,
      modulesRoot: dirname(options.scriptPath),
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: COMPATIBILITY_FLAGS,
      durableObjects: options.durableObjects,
      cf: false,
      ...(options.persist ? { durableObjectsPersist: options.persist } : {}),
      // workerd's V8 inspector (scripts/profile.mjs): CPU profiles of the Worker's isolate.
      ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
      log: new Log(options.verbose ? LogLevel.DEBUG : LogLevel.WARN),
    });
    const started = performance.now();
    try {
      const url = await miniflare.ready;
      const host = new WorkerHost(miniflare, url, performance.now() - started, options);
      // Several hosts may run at once: this one's workerd is the one that was not there before.
      host.pid = findChildProcess(process.pid, (command) => command.includes("workerd"), WorkerHost.#claimed);
      if (host.pid !== null) WorkerHost.#claimed.add(host.pid);
      return host;
    } catch (error) {
      await miniflare.dispose().catch(() => undefined);
      throw error;
    }
  }

  dispose() {
    if (this.pid !== null) WorkerHost.#claimed.delete(this.pid);
    return this.miniflare.dispose();
  }

  /** GET /bench/<op>?params → { body, ms } (ms: Node-side, the whole HTTP call). */
  async call(op, params = {}) {
    const query = new URLSearchParams(
      Object.entries(params).map(([key, value]) => /** @type {[string, string]} */ ([key, String(value)])),
    );
    const started = performance.now();
    const response = await this.miniflare.dispatchFetch(`${this.origin}/bench/${op}?${query}`);
    const text = await response.text();
    const ms = performance.now() - started;
    if (!response.ok) throw new Error(`/bench/${op} → ${response.status}: ${text.slice(0, 500)}`);
    return { body: JSON.parse(text), ms };
  }

  /**
   * A recording client on the parent's socket; `query` is appended to the URL (e.g. cursors). It asks for batches
   * (`agentToolBatch=1`, as `@agent-tools/client` does; a target that does not know it sends one frame per message).
   * `deflate: false` stops `ws` from offering permessage-deflate (it does by default, like browsers; our servers
   * decline it).
   */
  connect(parent, query = "", { deflate = true } = {}) {
    const path = this.wsPath.replace("{parent}", encodeURIComponent(parent));
    const search = `${query === "" ? "?" : `${query}&`}${BATCH_QUERY}`;
    return new FrameClient(`${this.origin.replace(/^http/, "ws")}${path}${search}`, deflate);
  }

  /** The workerd process Miniflare started (a child of this Node process). */
  workerdPid() {
    return this.pid;
  }

  /** workerd's CPU time so far, ms (see `cpuMs`). */
  cpuMs() {
    return cpuMs(this.workerdPid());
  }
}

const TERMINAL = new Set(["finished", "error", "aborted", "interrupted"]);
/** The query that asks a parent for batches (SPEC §6: `AGENT_TOOL_BATCH_PARAM=AGENT_TOOL_BATCH_VERSION`). */
const BATCH_QUERY = "agentToolBatch=1";

/**
 * Records `agent-tool-event` frames with their arrival time; resolves waits from arriving frames. Also notes the
 * target's `bench-replay-done` frame (sent after a connect's replay). A batch (a JSON array of frames, SPEC §6) gives
 * each of its frames the batch's arrival time and the frame's own length (its JSON text's, measured when read, after
 * the timed part).
 */
export class FrameClient {
  /** @param {string} url @param {boolean} deflate */
  constructor(url, deflate = true) {
    this.createdAt = performance.now();
    this.openedAt = null;
    /** @type {{ at: number, replay: boolean, kind: string, runId: string, sequence?: number, revision?: number, bytes: number }[]} */
    this.frames = [];
    this.bytes = 0;
    this.replayTerminals = 0;
    this.liveTerminals = new Set();
    this.replayDone = null;
    this.waiters = new Set();
    this.socket = new WebSocket(url, deflate ? {} : { perMessageDeflate: false });
    this.socket.on("message", (data, isBinary) => this.#receive(data, isBinary));
    /** Why the socket failed (e.g. the server refused the upgrade: `Unexpected server response: 431`), or null. */
    this.error = null;
    /** @type {Promise<void>} */
    this.opened = new Promise((resolve, reject) => {
      this.socket.once("open", () => {
        this.openedAt = performance.now();
        resolve(undefined);
      });
      this.socket.on("error", (error) => {
        this.error ??= error instanceof Error ? error.message : String(error);
        reject(error);
        for (const waiter of [...this.waiters]) waiter();
      });
    });
    // A refused connection is reported through `error` (and `waitFor` ends): nobody has to await `opened`.
    this.opened.catch(() => undefined);
  }

  #receive(data, isBinary) {
    const at = performance.now();
    if (isBinary) return;
    const text = data.toString();
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    this.bytes += text.length;
    if (Array.isArray(message)) {
      for (const one of message) this.#take(one, at, null);
    } else {
      this.#take(message, at, text.length);
    }
    for (const waiter of [...this.waiters]) waiter();
  }

  /** One frame (of a batch: `length` null, its own length read from it when asked). */
  #take(message, at, length) {
    if (message?.type === "bench-replay-done") {
      this.replayDone = { at, ...message };
      return;
    }
    if (message?.type !== "agent-tool-event") return;
    const event = message.event ?? {};
    const replay = message.replay === true;
    const frame =
      length === null
        ? {
            at,
            replay,
            kind: event.kind,
            runId: event.runId,
            get bytes() {
              return JSON.stringify(message).length;
            },
          }
        : { at, replay, kind: event.kind, runId: event.runId, bytes: length };
    if (message.sequence !== undefined) frame.sequence = message.sequence;
    if (message.revision !== undefined) frame.revision = message.revision;
    this.frames.push(frame);
    if (TERMINAL.has(frame.kind)) {
      if (frame.replay) this.replayTerminals += 1;
      else this.liveTerminals.add(frame.runId);
    }
  }

  /** Resolves true once `predicate()` holds, false after `timeoutMs`. */
  waitFor(predicate, timeoutMs = 30_000) {
    if (predicate()) return Promise.resolve(true);
    if (this.error !== null) return Promise.resolve(false);
    return new Promise((resolve) => {
      const check = () => {
        if (this.error !== null) {
          done();
          resolve(false);
          return;
        }
        if (!predicate()) return;
        done();
        resolve(true);
      };
      const timer = setTimeout(() => {
        done();
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** workerd does not answer the close handshake here: drop the socket. */
  close() {
    try {
      this.socket.terminate();
    } catch {
      // already gone
    }
  }
}

/** The first child of `parentPid` whose command line matches (and is not in `except`). */
function findChildProcess(parentPid, matches, except = new Set()) {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || except.has(Number(entry))) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces, so split after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== parentPid) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (matches(command)) return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  return null;
}

/** VmRSS of a process, in KiB (null when it cannot be read). */
export function residentKiB(pid) {
  if (pid === null) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * CPU time the process has used so far, in ms (every thread: /proc/<pid>/task/<tid>/schedstat, ns). Less
 * sensitive than wall time to other work on a shared machine: the workloads report it beside their wall times.
 */
export function cpuMs(pid) {
  if (pid === null) return null;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
