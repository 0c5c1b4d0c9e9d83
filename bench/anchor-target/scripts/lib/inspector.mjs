// workerd's V8 inspector, reached through Miniflare's inspector port: CPU profiles (scripts/profile.mjs) and the
// isolate's heap (pnpm bench's fan-out memory).
import WebSocket from "ws";

/** A minimal Chrome DevTools Protocol client. */
export class Cdp {
  static connect(url) {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once("open", () => resolve(new Cdp(socket)));
      socket.once("error", reject);
    });
  }
  constructor(socket) {
    this.socket = socket;
    this.nextId = 1;
    this.pending = new Map();
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString());
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    });
  }
  call(method, params = {}) {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }
  close() {
    this.socket.close();
  }
}

/** A session on the Worker's own isolate (`core:user:`) of a host started with `inspectorPort`. */
export async function connectToWorker(port) {
  const targets = /** @type {{ id: string, webSocketDebuggerUrl: string }[]} */ (
    await (await fetch(`http://127.0.0.1:${port}/json`)).json()
  );
  const user = targets.find((entry) => entry.id === "core:user:");
  if (!user) throw new Error("no core:user: target on the inspector");
  return Cdp.connect(user.webSocketDebuggerUrl);
}

/**
 * The isolate's V8 heap in use now, bytes (garbage included: workerd's inspector does not answer
 * `HeapProfiler.collectGarbage`; a target's `/bench/gc` collects it when workerd runs with `--expose-gc`).
 */
export async function heapUsed(cdp) {
  const { usedSize } = await cdp.call("Runtime.getHeapUsage");
  return usedSize;
}

/**
 * Resolves `work`'s result with the isolate's highest heap use seen while it ran, sampled every `everyMs`; each
 * sample after `before()` when given (e.g. a full collection: then the peak is of what was live, not of garbage).
 * @template T
 * @param {Cdp} cdp @param {() => Promise<T>} work
 * @param {{ everyMs?: number, before?: () => Promise<unknown>, read?: () => Promise<number> }} [options]
 * @returns {Promise<{ result: T, peak: number }>}
 */
export async function withPeakHeap(cdp, work, { everyMs = 10, before, read = () => heapUsed(cdp) } = {}) {
  const sample = async () => {
    await before?.();
    return read();
  };
  let peak = await sample();
  let done = false;
  const sampling = (async () => {
    while (!done) {
      peak = Math.max(peak, await sample());
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  let result;
  try {
    result = await work();
  } finally {
    done = true;
    await sampling;
  }
  // The isolate answers between its tasks only: the last sample, once the work is done, may be the highest.
  return { result: /** @type {T} */ (result), peak: Math.max(peak, await sample()) };
}

/**
 * The isolate's live heap, bytes: the sum of a heap snapshot's objects (V8 collects garbage fully before it takes
 * one). Unlike a `/bench/gc` request, the inspector is answered between the isolate's tasks while a workload runs:
 * workerd answered no HTTP request during a fan-out turn (a `/bench/gc` sent at its start ran at once and was answered
 * after the turn, so the `heapUsed` read after it counted every allocation since: ~50 MiB of garbage), and one `gc()`
 * leaves what native code wraps (SQL cursors, streams, RPC stubs) until a later collection.
 */
export async function liveHeap(cdp) {
  const chunks = [];
  const onMessage = (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(message.params.chunk);
  };
  cdp.socket.on("message", onMessage);
  try {
    await cdp.call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  } finally {
    cdp.socket.off("message", onMessage);
  }
  const snapshot = JSON.parse(chunks.join(""));
  const fields = snapshot.snapshot.meta.node_fields;
  const stride = fields.length;
  const selfSize = fields.indexOf("self_size");
  let total = 0;
  for (let index = selfSize; index < snapshot.nodes.length; index += stride) total += snapshot.nodes[index];
  return total;
}
