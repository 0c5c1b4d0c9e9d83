import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import {
  Log,
  LogLevel,
  Miniflare,
  type MiniflareOptions,
  type RequestInit as MiniflareRequestInit,
  type Response as MiniflareResponse,
  type WorkerOptions as MiniflareWorkerOptions,
} from "miniflare";
import { forwardWorkerdOutput } from "./workerd-output.js";
import { findWorkerdProcess, isProcessRunning } from "./workerd-process.js";

/** A Durable Object binding: the exported class name, or the class name and whether it uses SQLite (default). */
export type DurableObjectBinding = string | { className: string; useSQLite?: boolean };

export type MiniflareHostOptions = {
  /** The bundled Worker (an ES module), e.g. from `bundleWorker`. */
  scriptPath: string;
  /** Binding name → Durable Object class exported by the Worker. Every class is SQLite-backed unless told. */
  durableObjects?: Record<string, DurableObjectBinding>;
  /** Folder holding Durable Object storage (SQLite files and alarms); `restart()` reopens the same folder. */
  persistDirectory: string;
  /** Plain-text or JSON bindings (`env.NAME`). */
  bindings?: Record<string, unknown>;
  compatibilityDate?: string;
  compatibilityFlags?: string[];
  /**
   * Workers static assets (Miniflare's `assets` option: `directory`, `binding`, `routerConfig`), served in front of
   * the Worker as on Cloudflare. The directory need not exist (then no file matches).
   */
  assets?: MiniflareWorkerOptions["assets"];
  /** Miniflare's own log level (workerd's console output is printed regardless). Default `WARN`. */
  logLevel?: LogLevel;
};

export const DEFAULT_COMPATIBILITY_DATE = "2026-04-20";
/**
 * As apps/demo/wrangler.jsonc: `nodejs_compat`, and `enable_request_signal` (a client that leaves aborts its request's
 * `signal`: a parent's AG-UI stream stops following it).
 */
export const DEFAULT_COMPATIBILITY_FLAGS: readonly string[] = ["nodejs_compat", "enable_request_signal"];

/** What `kill()` did: the workerd process it killed. */
export type KillReport = { pid: number };

/**
 * One Worker running in real workerd through Miniflare, with Durable Object storage persisted in a folder, and
 * restartable: `restart()` disposes the instance and starts a new one on the same folder, as an eviction or a
 * deploy would (every object starts cold; storage and alarms survive). `kill()` stops it as a crash would: workerd
 * gets SIGKILL at once, with no step of Miniflare's shutdown before it; `killAndRestart()` then starts it again on
 * the same folder.
 *
 * @example
 * const persist = await createPersistDirectory();
 * const host = await MiniflareHost.start({ scriptPath, durableObjects: { AGENT: "Agent" }, persistDirectory: persist.path });
 * const response = await host.fetch("/status");
 * await host.restart();
 * await host.dispose();
 * await persist.remove();
 */
export class MiniflareHost {
  #options: MiniflareOptions;
  #miniflare: Miniflare;
  #url: URL;
  #killed = false;

  private constructor(options: MiniflareOptions, miniflare: Miniflare, url: URL) {
    this.#options = options;
    this.#miniflare = miniflare;
    this.#url = url;
  }

  /** Start workerd and resolve once the Worker answers. */
  static async start(options: MiniflareHostOptions): Promise<MiniflareHost> {
    const miniflareOptions = toMiniflareOptions(options);
    const { miniflare, url } = await boot(miniflareOptions);
    return new MiniflareHost(miniflareOptions, miniflare, url);
  }

  /** The running instance, for APIs the host does not wrap (`getBindings`, `getDurableObjectNamespace`, …). */
  get miniflare(): Miniflare {
    return this.#miniflare;
  }

  /** The Worker's origin (changes on restart: each instance listens on a new port). */
  get url(): URL {
    return this.#url;
  }

  /** Send a request to the Worker; `path` is resolved against `url`. */
  fetch(path: string, init?: MiniflareRequestInit): Promise<MiniflareResponse> {
    return this.#miniflare.dispatchFetch(new URL(path, this.#url), init);
  }

  /**
   * `fetch`, then parse the body as JSON; rejects with the status and body text on a non-2xx response.
   * A `body` is sent as JSON (`POST` unless `method` says otherwise).
   */
  async fetchJson<TResult>(
    path: string,
    init: Omit<MiniflareRequestInit, "body"> & { body?: unknown } = {},
  ): Promise<TResult> {
    const { body, ...rest } = init;
    const request: MiniflareRequestInit =
      body === undefined
        ? rest
        : {
            method: "POST",
            headers: { "content-type": "application/json" },
            ...rest,
            body: JSON.stringify(body),
          };
    const response = await this.fetch(path, request);
    const text = await response.text();
    if (!response.ok) throw new Error(`${request.method ?? "GET"} ${path} → ${response.status}: ${text}`);
    return JSON.parse(text) as TResult;
  }

  /**
   * Dispose the instance and start a new one on the same persistence folder; `bindings` (if given) replace the
   * plain bindings from then on (e.g. to turn a test knob off across the restart).
   */
  async restart(bindings?: Record<string, unknown>): Promise<void> {
    if (!this.#killed) await this.#miniflare.dispose();
    if (bindings !== undefined) this.#options = { ...this.#options, bindings };
    const { miniflare, url } = await boot(this.#options);
    this.#miniflare = miniflare;
    this.#url = url;
    this.#killed = false;
  }

  /** The pid of the workerd process serving the Worker now (a child of this process). */
  workerdPid(): number {
    return findWorkerdProcess(Number(this.#url.port));
  }

  /**
   * Stop the runtime as a crash would: SIGKILL the workerd process now, before anything else. workerd runs no
   * shutdown, finishes no request, runs no timer or `waitUntil` task, flushes nothing that it had not committed to
   * its SQLite files already, and sends no WebSocket close frame (clients see an abnormal close, 1006).
   *
   * `dispose()` also ends in a SIGKILL of workerd, but only after steps of its own (poisoning proxies, waiting for
   * readiness, closing the proxy client), turns of this process's event loop during which workerd goes on running.
   * Here the signal is sent first, at the moment the test chose; Miniflare is then disposed in the same tick so that
   * it does not restart the crashed workerd by itself. Resolves once the process is gone; `restart()` (or
   * `killAndRestart()`) starts a new one on the same persistence folder.
   */
  async kill(): Promise<KillReport> {
    if (this.#killed) throw new Error("The runtime was killed already; restart() it first");
    const pid = this.workerdPid();
    process.kill(pid, "SIGKILL");
    this.#killed = true;
    // Synchronously after the signal: Miniflare would otherwise see the crash and start workerd again.
    await this.#miniflare.dispose();
    if (isProcessRunning(pid)) throw new Error(`workerd (pid ${pid}) still runs after SIGKILL`);
    return { pid };
  }

  /** `kill()`, then start again on the same folder (with `bindings`, if given, as `restart` takes them). */
  async killAndRestart(bindings?: Record<string, unknown>): Promise<KillReport> {
    const report = await this.kill();
    await this.restart(bindings);
    return report;
  }

  /** Stop workerd. Storage stays in the persistence folder. */
  async dispose(): Promise<void> {
    if (this.#killed) return;
    await this.#miniflare.dispose();
  }
}

/** A fresh, empty folder under the OS temp folder, and a way to remove it. */
export type PersistDirectory = { path: string; remove(): Promise<void> };

export async function createPersistDirectory(prefix = "agent-tools-demo-"): Promise<PersistDirectory> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

function toMiniflareOptions(options: MiniflareHostOptions): MiniflareOptions {
  const durableObjects = Object.fromEntries(
    Object.entries(options.durableObjects ?? {}).map(([binding, target]) => {
      const { className, useSQLite = true } = typeof target === "string" ? { className: target } : target;
      return [binding, { className, useSQLite }];
    }),
  );
  return {
    modules: true,
    scriptPath: options.scriptPath,
    // Module names relative to the bundle's own folder, not to the working directory: workerd refuses a name that
    // climbs out of it ("..") when a test runs from a package's folder.
    modulesRoot: dirname(options.scriptPath),
    compatibilityDate: options.compatibilityDate ?? DEFAULT_COMPATIBILITY_DATE,
    compatibilityFlags: options.compatibilityFlags ?? [...DEFAULT_COMPATIBILITY_FLAGS],
    durableObjects,
    durableObjectsPersist: options.persistDirectory,
    ...(options.bindings === undefined ? {} : { bindings: options.bindings }),
    ...(options.assets === undefined ? {} : { assets: options.assets }),
    // A placeholder Request.cf instead of fetching one: this machine is offline.
    cf: false,
    log: new Log(options.logLevel ?? LogLevel.WARN),
    // workerd's output as Miniflare prints it, without the diagnostics workerd marks as expected (NOSENTRY).
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => void forwardWorkerdOutput(stdout, stderr),
  };
}

async function boot(options: MiniflareOptions): Promise<{ miniflare: Miniflare; url: URL }> {
  const miniflare = new Miniflare(options);
  try {
    return { miniflare, url: await miniflare.ready };
  } catch (error) {
    await miniflare.dispose().catch(() => undefined);
    throw error;
  }
}
