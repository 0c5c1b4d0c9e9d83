// The workloads. W1–W5 follow the anchor harness's definitions (its README, "Workloads"; bench/README.md);
// the rest are this repository's own: reconnect with cursors, a reconcile tick, memory with retained runs.
import { performance } from "node:perf_hooks";
import { residentKiB, sleep } from "./host.mjs";
import { describe, interquartileMean, quantile, round } from "./stats.mjs";

const TERMINAL = new Set(["finished", "error", "aborted", "interrupted"]);
const pick = (items, key) => items.map((item) => item[key]).filter((value) => typeof value === "number");
const countKinds = (frames) =>
  frames.reduce((kinds, frame) => {
    kinds[frame.kind] = (kinds[frame.kind] ?? 0) + 1;
    return kinds;
  }, {});

/** Node → Worker → parent round trip with no agent work. */
export async function baseline(host, parent = "baseline") {
  const samples = [];
  for (let index = 0; index < 30; index += 1) samples.push((await host.call("ping", { parent })).ms);
  return { pingOuterMs: describe(samples.slice(5)) };
}

/**
 * W1: awaited runs of C chunks, one after another on one parent, each a new runId (a new child).
 * @param {string} [parent] @param {string} [mode] the raw pipe's `streamText` (the real child's floor)
 */
export async function w1(host, P, parent = "w1", mode = undefined) {
  const inner = [];
  const outer = [];
  const statuses = {};
  for (let index = 0; index < P.w1Warmup + P.w1Runs; index += 1) {
    const { body, ms } = await host.call("run", {
      parent,
      runId: `${parent}-${index}`,
      count: P.w1Chunks,
      ...(mode ? { mode } : {}),
    });
    statuses[body.status] = (statuses[body.status] ?? 0) + 1;
    if (index < P.w1Warmup) continue;
    inner.push(body.ms);
    outer.push(ms);
  }
  return {
    chunksPerRun: P.w1Chunks,
    runs: P.w1Runs,
    statuses,
    allCompleted: statuses.completed === P.w1Warmup + P.w1Runs,
    innerMs: describe(inner),
    outerMs: describe(outer),
  };
}

/**
 * One W2 repetition: a client connected first, one run of C chunks, frames counted at the client.
 * @param {{ deflate?: boolean, around?: { before(): Promise<unknown>, after(): Promise<unknown> }, mode?: string }} [options]
 */
export async function w2Once(host, P, parent, options = {}) {
  const { deflate = true, around, mode } = options;
  await host.call("ping", { parent });
  const client = host.connect(parent, "", { deflate });
  await client.opened;
  if (host.sendsReplayDone) await client.waitFor(() => client.replayDone !== null, 2_000);
  await sleep(50);
  const runId = `${parent}-run`;
  // `around` (scripts/profile.mjs) brackets the timed part only: a profiler started before it, stopped after.
  await around?.before();
  const cpuBefore = host.cpuMs();
  const started = performance.now();
  const pending = host.call("run", { parent, runId, count: P.w2Chunks, ...(mode ? { mode } : {}) });
  const sawTerminal = await client.waitFor(() => client.liveTerminals.has(runId), 60_000);
  const { body } = await pending;
  const cpuMs = host.cpuMs() - cpuBefore;
  await around?.after();
  client.close();
  const frames = client.frames.filter((frame) => frame.runId === runId && !frame.replay);
  const chunks = frames.filter((frame) => frame.kind === "chunk");
  const end = frames.find((frame) => TERMINAL.has(frame.kind))?.at ?? performance.now();
  const spanMs = end - started;
  const streamMs = chunks.length > 1 ? chunks.at(-1).at - chunks[0].at : null;
  const lastChunkMs = chunks.length > 0 ? chunks.at(-1).at - started : null;
  return {
    sawTerminal,
    status: body.status,
    chunkFrames: chunks.length,
    dispatchToTerminalMs: round(spanMs),
    firstChunkMs: chunks.length > 0 ? round(chunks[0].at - started) : null,
    lastChunkMs: round(lastChunkMs),
    innerMs: body.ms,
    cpuMs: round(cpuMs),
    chunksPerSec: round((chunks.length / spanMs) * 1000, 0),
    streamChunksPerSec: streamMs ? round(((chunks.length - 1) / streamMs) * 1000, 0) : null,
    bytesPerChunkFrame:
      chunks.length > 0 ? round(chunks.reduce((sum, frame) => sum + frame.bytes, 0) / chunks.length, 1) : null,
  };
}

export function w2Summary(P, reps) {
  return {
    chunks: P.w2Chunks,
    reps: reps.length,
    chunkFramesReceived: pick(reps, "chunkFrames"),
    allTerminal: reps.every((rep) => rep.sawTerminal && rep.status === "completed"),
    chunksPerSec: describe(pick(reps, "chunksPerSec")),
    streamChunksPerSec: describe(pick(reps, "streamChunksPerSec")),
    dispatchToTerminalMs: describe(pick(reps, "dispatchToTerminalMs")),
    firstChunkMs: describe(pick(reps, "firstChunkMs")),
    lastChunkMs: describe(pick(reps, "lastChunkMs")),
    innerMs: describe(pick(reps, "innerMs")),
    cpuMs: describe(pick(reps, "cpuMs")),
    bytesPerChunkFrame: reps[0]?.bytesPerChunkFrame ?? null,
  };
}

/** W4's retained runs: K completed runs of C chunks, dispatched in batches of 10. */
export async function seedRetained(host, P, parent) {
  const started = performance.now();
  for (let offset = 0; offset < P.w4Runs; offset += 10) {
    await host.call("fanout", {
      parent,
      prefix: `${parent}-b${offset}`,
      runs: Math.min(10, P.w4Runs - offset),
      count: P.w4Chunks,
    });
  }
  return round(performance.now() - started);
}

/**
 * A new client connects (with `query`, e.g. cursors) and receives the replay. Complete at the target's
 * `bench-replay-done` frame; timed from `new WebSocket()` to the last replayed frame (the harness's definition)
 * and to the done frame (which also covers a replay of zero frames).
 */
export async function replayOnce(host, parent, query = "", { deflate = true } = {}) {
  const client = host.connect(parent, query, { deflate });
  const complete = await client.waitFor(() => client.replayDone !== null, 60_000);
  client.close();
  const frames = client.frames.filter((frame) => frame.replay);
  return {
    complete,
    ...(client.error !== null ? { error: client.error } : {}),
    frames: frames.length,
    chunkFrames: frames.filter((frame) => frame.kind === "chunk").length,
    bytes: frames.reduce((sum, frame) => sum + frame.bytes, 0),
    kinds: countKinds(frames),
    connectToAllMs: frames.length > 0 ? round(frames.at(-1).at - client.createdAt) : null,
    connectToDoneMs: client.replayDone ? round(client.replayDone.at - client.createdAt) : null,
    connectToFirstMs: frames.length > 0 ? round(frames[0].at - client.createdAt) : null,
    serverReplayMs: client.replayDone?.ms ?? null,
    framesSeen: client.frames.filter((frame) => frame.replay),
  };
}

export function replaySummary(P, reps) {
  return {
    retainedRuns: P.w4Runs,
    chunksPerRun: P.w4Chunks,
    framesReceived: pick(reps, "frames"),
    allComplete: reps.every((rep) => rep.complete),
    kinds: reps[0]?.kinds,
    replayBytes: reps[0]?.bytes,
    connectToAllMs: describe(pick(reps, "connectToAllMs")),
    connectToDoneMs: describe(pick(reps, "connectToDoneMs")),
    connectToFirstMs: describe(pick(reps, "connectToFirstMs")),
    serverReplayMs: describe(pick(reps, "serverReplayMs")),
  };
}

/** What a client holds after seeing `frames`: per run, the highest sequence and lifecycle revision. */
export function cursorsFrom(frames) {
  const cursors = new Map();
  for (const frame of frames) {
    const cursor = cursors.get(frame.runId) ?? { sequence: 0, revision: 0 };
    if (frame.sequence !== undefined) cursor.sequence = Math.max(cursor.sequence, frame.sequence);
    if (frame.revision !== undefined) cursor.revision = Math.max(cursor.revision, frame.revision);
    cursors.set(frame.runId, cursor);
  }
  // The wire form of @agent-tools/core-runs/protocol `encodeAgentToolCursors`: [[runId, sequence, revision], …].
  const encoded = JSON.stringify([...cursors].map(([runId, cursor]) => [runId, cursor.sequence, cursor.revision]));
  return `?agentToolCursors=${encodeURIComponent(encoded)}`;
}

/**
 * Reconnect with cursors on a parent holding W4's runs: a client that saw a whole replay (full cursors), and one
 * that missed the last 10 % of its frames (cursors from the first 90 %).
 */
export async function reconnect(host, P, parent) {
  const full = await replayOnce(host, parent);
  const everything = cursorsFrom(full.framesSeen);
  const cut = Math.floor(full.framesSeen.length * 0.9);
  const missed = cursorsFrom(full.framesSeen.slice(0, cut));
  const expectedMissedFrames = full.framesSeen.length - cut;
  /** @type {{ none: any[], full: any[], missed10: any[] }} */
  const runs = { none: [], full: [], missed10: [] };
  for (let rep = 0; rep < P.reps; rep += 1) {
    runs.none.push(await replayOnce(host, parent));
    runs.full.push(await replayOnce(host, parent, everything));
    runs.missed10.push(await replayOnce(host, parent, missed));
  }
  const shape = (reps) => ({
    frames: pick(reps, "frames")[0],
    chunkFrames: pick(reps, "chunkFrames")[0],
    kinds: reps[0]?.kinds,
    bytes: reps[0]?.bytes,
    allComplete: reps.every((rep) => rep.complete),
    connectToDoneMs: describe(pick(reps, "connectToDoneMs")),
    serverReplayMs: describe(pick(reps, "serverReplayMs")),
  });
  return {
    retainedRuns: P.w4Runs,
    chunksPerRun: P.w4Chunks,
    cursorQueryBytes: { full: everything.length, missed10: missed.length },
    noCursors: shape(runs.none),
    fullCursors: shape(runs.full),
    missedLast10Percent: { framesMissed: expectedMissedFrames, ...shape(runs.missed10) },
  };
}

/** W5: storage written by one run of C chunks (and the parent's growth averaged over more runs). */
export async function w5(host, P) {
  const { body } = await host.call("storage", {
    parent: "w5-0",
    runId: "w5-0-run",
    count: P.w5Chunks,
    growthRuns: P.w5GrowthRuns,
  });
  return { chunks: P.w5Chunks, ...body };
}

/**
 * The parent's database after many finished runs (`P.retentionRuns`, of W5's C), without log retention and with
 * `{ maxRuns: P.retentionMaxRuns }`, for two shapes: the stub run W5 measures (copied from a real run's row and log)
 * and a real child's (word-sized deltas a few ms apart, the text as summary). Each on a fresh parent.
 */
export async function retention(host, P) {
  const shapes = [];
  for (const shape of ["stub", "tokens"]) {
    const sizes = {};
    for (const [label, maxRuns] of [
      ["full", -1],
      ["retained", P.retentionMaxRuns],
    ]) {
      const parent = `retention-${shape}-${label}`;
      const { body } = await host.call("retention-size", {
        parent,
        prefix: parent,
        runs: P.retentionRuns,
        count: P.w5Chunks,
        shape,
        maxRuns,
      });
      sizes[label] = body;
    }
    shapes.push({ shape, ...sizes });
  }
  return { runs: P.retentionRuns, maxRuns: P.retentionMaxRuns, chunks: P.w5Chunks, shapes };
}

/** `/bench/stats` of a parent (reset on read). */
export async function stats(host, parent) {
  return (await host.call("stats", { parent })).body;
}

/**
 * The reconcile tick of `@agent-tools/detached` (reconcile/worker.ts) over retained detached runs seeded straight
 * into a parent's store: all finished and delivered, except `due` of them whose delivery is to be retried a few
 * seconds later. Per shape: the first tick (it runs `start()`: one `listRuns` of every retained row, to build the
 * due index), the tick once the due deliveries' time has come, and an idle tick.
 */
export async function reconcile(host, P) {
  const shapes = [
    { retained: 1000, due: 10 },
    { retained: 1000, due: 100 },
    { retained: P.reconcileLargeRuns, due: 10 },
  ];
  const dueInMs = P.reconcileDueInMs;
  const seededAt = performance.now();
  for (const [index, shape] of shapes.entries()) {
    await host.call("seed", { parent: `reconcile-${index}`, ...shape, dueInMs });
  }
  const seededUntil = performance.now();
  const seedMs = seededUntil - seededAt;
  const first = [];
  for (const [index] of shapes.entries()) first.push((await host.call("tick", { parent: `reconcile-${index}` })).body);
  // Every seed set its due time at most dueInMs after it started, so before seededUntil + dueInMs.
  await sleep(Math.max(0, dueInMs - (performance.now() - seededUntil)) + 100);
  const due = [];
  const idle = [];
  for (const [index] of shapes.entries()) due.push((await host.call("tick", { parent: `reconcile-${index}` })).body);
  for (const [index] of shapes.entries()) idle.push((await host.call("tick", { parent: `reconcile-${index}` })).body);
  const view = (tick) => ({
    ms: round(tick.ms, 2),
    rowsRead: tick.rowsRead,
    rowsWritten: tick.rowsWritten,
    due: tick.due,
    delivered: tick.delivered,
  });
  return {
    note: "@agent-tools/detached's Reconciler: start() lists every retained row once; each tick then reads only the due runs (an in-memory min-heap of due times). Seeded runs are finished (no child objects).",
    seedMs: round(seedMs),
    dueInMs,
    // A first tick that already found the due runs means seeding took longer than dueInMs: raise it.
    firstTickSawDue: first.some((tick) => tick.due > 0),
    shapes: shapes.map((shape, index) => ({
      ...shape,
      firstTick: view(first[index]),
      dueTick: view(due[index]),
      idleTick: view(idle[index]),
    })),
  };
}

/**
 * Memory of a parent with many retained runs: workerd's VmRSS while seeding (live process), then of a fresh
 * workerd on storage holding 0 / 1 000 / N retained runs: after boot, after waking the parent and one awaited
 * run (what any parent does; nothing lists the retained runs), and after `/bench/stats` (which lists every run,
 * as a UI's run list would).
 */
export async function memory(startHost, P, persistRoot) {
  const rss = (host) => residentKiB(host.workerdPid());
  const mib = (kib) => (kib === null ? null : round(kib / 1024, 1));
  const sizes = [0, 1000, P.memoryRuns];
  const folders = {};
  const liveProcess = [];
  for (const size of sizes) {
    const folder = `${persistRoot}/memory-${size}`;
    folders[size] = folder;
    const host = await startHost(folder);
    try {
      await host.call("ping", { parent: "memory" });
      await sleep(300);
      if (size === P.memoryRuns) liveProcess.push({ step: "parent woken, 0 runs", rssMiB: mib(rss(host)) });
      for (let offset = 0; offset < size; offset += 1000) {
        const runs = Math.min(1000, size - offset);
        await host.call("seed", { parent: "memory", prefix: `m${offset}`, runs, count: P.memoryChunks });
        if (size === P.memoryRuns && (offset + runs) % 2500 === 0) {
          liveProcess.push({ step: `${offset + runs} runs seeded`, rssMiB: mib(rss(host)) });
        }
      }
    } finally {
      await host.dispose();
    }
  }
  /** @type {{ retainedRuns: number, bootMiB: number | null, wokenAndOneRunMiB: number | null, afterListingMiB: number | null, startupRowsRead: number, startupReaders: Record<string, number> }[]} */
  const cold = [];
  for (let rep = 0; rep < P.memoryReps; rep += 1) {
    for (const size of sizes) {
      const host = await startHost(folders[size]);
      try {
        const bootMiB = mib(rss(host));
        // The parent wakes over its stored runs and starts up: what that reads before its first tick.
        const startup = (await host.call("startup", { parent: "memory" })).body;
        await host.call("ping", { parent: "memory" });
        await host.call("run", { parent: "memory", runId: `after-wake-${rep}`, count: 10 });
        await sleep(300);
        const wokenAndOneRunMiB = mib(rss(host));
        const listed = await stats(host, "memory");
        await sleep(300);
        if (listed.retainedRuns !== size + rep + 1)
          throw new Error(`expected ${size + rep + 1} runs, found ${listed.retainedRuns}`);
        cold.push({
          retainedRuns: size,
          bootMiB,
          wokenAndOneRunMiB,
          afterListingMiB: mib(rss(host)),
          startupRowsRead: startup.rowsRead,
          startupReaders: startup.readers,
        });
      } finally {
        await host.dispose();
      }
    }
  }
  const column = (size, key) =>
    describe(cold.filter((row) => row.retainedRuns === size).map((row) => row[key] ?? Number.NaN));
  const bySize = Object.fromEntries(
    sizes.map((size) => [
      size,
      {
        bootMiB: column(size, "bootMiB"),
        wokenAndOneRunMiB: column(size, "wokenAndOneRunMiB"),
        afterListingMiB: column(size, "afterListingMiB"),
      },
    ]),
  );
  const delta = (key) =>
    Object.fromEntries(
      sizes.map((size) => [size, round((bySize[size][key].median ?? 0) - (bySize[0][key].median ?? 0), 1)]),
    );
  const lastOf = (size) => cold.filter((row) => row.retainedRuns === size).at(-1);
  return {
    // Issue 27: a start-up reads O(due + live runs), not O(retained). Rows read from the parent's construction until
    // its start-up is done, per retained size (the last restart's), and by statement at the largest size.
    startupRowsRead: Object.fromEntries(sizes.map((size) => [size, lastOf(size)?.startupRowsRead ?? null])),
    startupReadersAtLargest: lastOf(P.memoryRuns)?.startupReaders ?? null,
    chunksPerRetainedRun: P.memoryChunks,
    note: "workerd VmRSS (MiB). Retained runs are written straight into the parent's store (completed rows + one log batch each, as runAgentTool leaves them), not dispatched: no child objects exist. 'cold' = a fresh workerd on the stored data. The registry keeps nothing per finished run in memory; what grows is SQLite's page cache (wake and first dispatch scan the runs table: no index on status) and, after listing, the V8 heap.",
    liveProcess,
    cold: bySize,
    deltaVsZeroRunsMiB: { wokenAndOneRun: delta("wokenAndOneRunMiB"), afterListing: delta("afterListingMiB") },
    samples: cold,
  };
}

/**
 * The Stop cascade (tree/worker.ts): `P.stopReps` turns, each fanning out to `P.stopTop` × `P.stopBranches` ×
 * `P.stopLeaves` children across 3 levels, stopped once every leaf streams. Per descendant: its end after the Stop
 * (ms, as its own parent recorded it); per turn: model calls started after the Stop.
 */
export async function stopCascade(host, P) {
  const ends = [];
  const callsAfterStop = [];
  const statuses = {};
  let descendants = 0;
  let leavesStreaming = 0;
  for (let rep = 0; rep < P.stopReps; rep += 1) {
    const { body } = await host.call("stop-cascade", {
      parent: `tree-${rep}`,
      top: P.stopTop,
      branches: P.stopBranches,
      leaves: P.stopLeaves,
    });
    ends.push(...body.endAfterStopMs);
    callsAfterStop.push(body.modelCallsAfterStop);
    descendants = body.descendants;
    leavesStreaming = body.leavesStreaming;
    for (const [status, count] of Object.entries(body.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  }
  return {
    note: "Every descendant's end is the time its own parent's registry recorded it, after the Stop of the turn (ms).",
    reps: P.stopReps,
    descendantsPerTurn: descendants,
    leavesStreamingAtStop: leavesStreaming,
    statuses,
    endAfterStopMs: { ...describe(ends), p99: round(quantile(ends, 0.99)), max: round(Math.max(...ends)) },
    modelCallsAfterStop: callsAfterStop,
  };
}

/**
 * Item 1 of issue 27, the shipped path with a chat turn: chat turns sent from code (`sendChatMessage`) whose
 * scripted model calls one tool, timed inside the parent: `bench` calls the stub child as an agent tool (C chunks),
 * `plain` an ordinary tool with the same output (the same turn without a child), interleaved one turn each, on
 * `P.reps` fresh parents. The parent-side cost of one awaited child is bench − plain (the stub child's own work, its
 * C chunks, is ≈ 0: see `turn-cost`). Beside it the platform's part: a round trip to a new Durable Object (the raw
 * pipe's `RawChild`, one RPC that writes one row), in the same sitting.
 */
export async function chatTurns(host, raw, P) {
  const plain = [];
  const bench = [];
  const fixed = [];
  const newObject = [];
  for (let rep = 0; rep < P.reps; rep += 1) {
    const parent = `chat-${rep}`;
    await host.call("chat-turns", { parent, tool: "plain", turns: 1, count: P.w1Chunks }); // warm: wires the parts
    for (let turn = 0; turn < P.chatTurns; turn += 1) {
      plain.push(...(await host.call("chat-turns", { parent, tool: "plain", turns: 1, count: P.w1Chunks })).body.ms);
      bench.push(...(await host.call("chat-turns", { parent, tool: "bench", turns: 1, count: P.w1Chunks })).body.ms);
      // The platform's part, in the same round: one RPC to a new object that writes a row.
      const { body } = await raw.call("fanout", {
        parent: "new-object",
        prefix: `n${rep}-${turn}`,
        runs: 1,
        count: P.w1Chunks,
        mode: "children",
      });
      newObject.push(body.ms);
      fixed.push(...(await host.call("chat-turns", { parent, tool: "fixed", turns: 1, count: P.w1Chunks })).body.ms);
    }
  }
  const median = (values) => quantile(values, 0.5) ?? Number.NaN;
  const overhead = median(bench) - median(plain);
  // In-DO times are whole ms: the interquartile means resolve the difference finer than the medians.
  const mean = (values) => interquartileMean(values) ?? Number.NaN;
  const overheadMean = mean(bench) - mean(plain);
  return {
    chunksPerRun: P.w1Chunks,
    turnsPerKind: plain.length,
    note: "in-DO ms (Date.now(), whole ms) of sendChatMessage; overhead of one awaited child = median(bench) − median(plain); the new object's round trip taken in the same rounds",
    plainToolTurnMs: describe(plain),
    agentToolTurnMs: describe(bench),
    fixedTurnMs: describe(fixed),
    awaitedChildOverheadMs: round(overhead),
    newDurableObjectRoundTripMs: describe(newObject),
    overheadBeyondNewObjectMs: round(overhead - median(newObject)),
    interquartileMeans: {
      plainToolTurnMs: round(mean(plain)),
      agentToolTurnMs: round(mean(bench)),
      newDurableObjectRoundTripMs: round(mean(newObject)),
      awaitedChildOverheadMs: round(overheadMean),
      overheadBeyondNewObjectMs: round(overheadMean - mean(newObject)),
    },
  };
}

/**
 * Item 3 of issue 27, fan-out: one chat turn whose model calls the stub child `calls` times at once (every run
 * awaited), for each size in `P.fanoutSizes`, on a fresh parent each, and the raw pipe's floor right after it (N new
 * `RawChild` objects, one RPC each, all at once, frames sent, a row kept): `P.fanoutReps` rounds over the sizes. In
 * the first round also the same turn with an ordinary tool and the registry alone (`runAgentTool` × N in
 * `Promise.all`). Then, per size, one more turn and floor for memory: the isolate's live V8 heap (a full collection
 * before each reading, every 50 ms, which slows the call: no time is taken from it), its peak growth during the call
 * and what stays after it (parent and children share the isolate under Miniflare: the raw pipe's is the floor).
 * Per size, each time figure is the median over the rounds (each round's own in `rounds`).
 */
export async function fanOut(host, raw, P, heap) {
  /** @type {Record<number, any[]>} */
  const bySize = Object.fromEntries(P.fanoutSizes.map((calls) => [calls, []]));
  for (let rep = 0; rep < P.fanoutReps; rep += 1) {
    for (const calls of P.fanoutSizes) bySize[calls]?.push(await fanOutOnce(host, raw, P, calls, rep));
  }
  const sizes = [];
  for (const calls of P.fanoutSizes) {
    const reps = bySize[calls] ?? [];
    const median = (key) => round(quantile(pick(reps, key), 0.5));
    sizes.push({
      calls,
      ...Object.fromEntries(
        Object.keys(reps[0] ?? {})
          .filter((key) => typeof reps[0]?.[key] === "number" && key !== "calls")
          .map((key) => [key, median(key)]),
      ),
      allTerminal: reps.every((rep) => rep.allTerminal),
      statuses: reps[0]?.statuses,
      registryStatuses: reps[0]?.registryStatuses,
      rounds: reps,
      ...(await fanOutHeap(host, raw, P, heap, calls)),
    });
  }
  const first = sizes[0];
  const last = sizes.at(-1);
  const perRun = (size, key) => size[key] / size.calls;
  return {
    chunksPerRun: P.fanoutChunks,
    reps: P.fanoutReps,
    note: "in-DO ms; heap = the isolate's live V8 heap (a heap snapshot's objects, before and one after another during the call; its own turn and floor, untimed) — parent and children share the isolate under Miniflare, so the raw pipe's (its children's) is the floor",
    sizes,
    // Linear: the time per run at the largest size over that at the smallest (1 = linear).
    turnLinearity: first && last ? round(perRun(last, "turnMs") / perRun(first, "turnMs")) : null,
    registryLinearity: first && last ? round(perRun(last, "registryMs") / perRun(first, "registryMs")) : null,
  };
}

/**
 * One timed round of one fan-out size: the turn and the raw pipe's floor; in the first round also the plain turn and
 * the registry alone.
 */
async function fanOutOnce(host, raw, P, calls, rep) {
  const parent = `fan-${calls}-${rep}`;
  await host.call("ping", { parent });
  await raw.call("ping", { parent });
  const { body: turn } = await host.call("chat-fanout", { parent, calls, count: P.fanoutChunks });
  const { body: floor } = await raw.call("fanout", {
    parent,
    prefix: `f${calls}-${rep}`,
    runs: calls,
    count: P.fanoutChunks,
    mode: "children",
  });
  const figures = {
    calls,
    turnMs: turn.ms,
    rawChildrenMs: floor.ms,
    turnVersusRaw: round(turn.ms / Math.max(1, floor.ms)),
    allTerminal: turn.runs === calls && turn.outputs === calls,
    statuses: turn.statuses,
  };
  if (rep > 0) return figures;
  // The same turn calling an ordinary tool: what the turn costs without children (the model's stream, the engine).
  const { body: plain } = await host.call("chat-fanout", {
    parent: `plain-${calls}`,
    calls,
    count: P.fanoutChunks,
    tool: "plain",
  });
  const { body: registry } = await host.call("fanout", {
    parent: `reg-${calls}`,
    prefix: `r${calls}`,
    runs: calls,
    count: P.fanoutChunks,
  });
  return {
    ...figures,
    plainTurnMs: plain.ms,
    // The children's part of the turn: the turn minus the same turn with an ordinary tool.
    childrenPartMs: turn.ms - plain.ms,
    childrenPartVersusRaw: round((turn.ms - plain.ms) / Math.max(1, floor.ms)),
    registryMs: registry.ms,
    registryStatuses: registry.statuses,
    registryVersusRaw: round(registry.ms / Math.max(1, floor.ms)),
  };
}

/** The live heap during one more turn of `calls` children and during the raw pipe's floor: peak growth, and after. */
async function fanOutHeap(host, raw, P, heap, calls) {
  const mib = (bytes) => round(bytes / 2 ** 20, 1);
  const parent = `fan-heap-${calls}`;
  await host.call("ping", { parent });
  const before = await heap.ours.live();
  const rssBefore = residentKiB(host.workerdPid());
  const { peak } = await heap.ours.peakLiveDuring(() =>
    host.call("chat-fanout", { parent, calls, count: P.fanoutChunks }),
  );
  const after = await heap.ours.live();
  const rssAfter = residentKiB(host.workerdPid());
  await raw.call("ping", { parent });
  const rawBefore = await heap.raw.live();
  const { peak: rawPeak } = await heap.raw.peakLiveDuring(() =>
    raw.call("fanout", { parent, prefix: `h${calls}`, runs: calls, count: P.fanoutChunks, mode: "children" }),
  );
  const rawAfter = await heap.raw.live();
  return {
    heapPeakGrowthMiB: mib(peak - before),
    heapAfterGrowthMiB: mib(after - before),
    rawHeapPeakGrowthMiB: mib(rawPeak - rawBefore),
    rawHeapAfterGrowthMiB: mib(rawAfter - rawBefore),
    heapVersusRaw: round((peak - before) / Math.max(1, rawPeak - rawBefore)),
    rssGrowthMiB: rssBefore !== null && rssAfter !== null ? round((rssAfter - rssBefore) / 1024, 1) : null,
  };
}

/**
 * Item 4 of issue 27, history-independent costs: the same chat turns (`fixed`: no model; `bench`: a scripted model
 * calling the stub child) on a parent with an empty conversation, one whose conversation holds `P.historyMessages`
 * stored messages, and one holding `P.historyRuns` retained runs; in-DO ms, medians over `P.chatTurns` turns each
 * after one warm-up turn (reported: the first turn pays what the engine loads once).
 */
export async function history(host, P) {
  const shapes = {
    empty: { parent: "hist-empty" },
    conversation: { parent: "hist-conversation", messages: P.historyMessages },
    retainedRuns: { parent: "hist-runs", runs: P.historyRuns },
  };
  const seeded = {};
  for (const [name, shape] of Object.entries(shapes)) {
    await host.call("ping", { parent: shape.parent });
    if (shape.messages) {
      seeded[name] = (
        await host.call("seed-conversation", {
          parent: shape.parent,
          prefix: "h",
          count: shape.messages,
          chars: P.historyChars,
        })
      ).body.ms;
    }
    for (let offset = 0; offset < (shape.runs ?? 0); offset += 1000) {
      await host.call("seed", {
        parent: shape.parent,
        prefix: `h${offset}`,
        runs: Math.min(1000, shape.runs - offset),
        count: 10,
      });
    }
  }
  const result = {};
  for (const [name, shape] of Object.entries(shapes)) {
    const first = (await host.call("chat-turns", { parent: shape.parent, tool: "fixed", turns: 1 })).body.ms[0];
    const firstBench = (
      await host.call("chat-turns", { parent: shape.parent, tool: "bench", turns: 1, count: P.w1Chunks })
    ).body.ms[0];
    const fixed = [];
    const bench = [];
    /** @type {{ fixed: number[], bench: number[] }} */
    const rows = { fixed: [], bench: [] };
    let readers = {};
    for (let turn = 0; turn < P.chatTurns; turn += 1) {
      const f = (await host.call("chat-turns", { parent: shape.parent, tool: "fixed", turns: 1 })).body;
      const b = (await host.call("chat-turns", { parent: shape.parent, tool: "bench", turns: 1, count: P.w1Chunks }))
        .body;
      fixed.push(...f.ms);
      bench.push(...b.ms);
      rows.fixed.push(...f.rowsRead);
      rows.bench.push(...b.rowsRead);
      readers = b.readers;
    }
    result[name] = {
      firstFixedTurnMs: first,
      firstAgentToolTurnMs: firstBench,
      fixedTurnMs: describe(fixed),
      agentToolTurnMs: describe(bench),
      rowsReadPerTurn: { fixed: quantile(rows.fixed, 0.5), agentTool: quantile(rows.bench, 0.5) },
      agentToolTurnReaders: readers,
    };
  }
  const ratio = (name, key) => round((result[name][key].median ?? 0) / Math.max(1, result.empty[key].median ?? 0));
  return {
    ...result,
    historyMessages: P.historyMessages,
    historyChars: P.historyChars,
    historyRuns: P.historyRuns,
    seedConversationMs: seeded.conversation ?? null,
    versusEmpty: {
      conversationFixed: ratio("conversation", "fixedTurnMs"),
      conversationAgentTool: ratio("conversation", "agentToolTurnMs"),
      retainedRunsFixed: ratio("retainedRuns", "fixedTurnMs"),
      retainedRunsAgentTool: ratio("retainedRuns", "agentToolTurnMs"),
    },
  };
}

/**
 * Item 4 of issue 27, clients of a parent holding `P.historyRuns` retained runs (`hist-runs`, seeded by `history`): a
 * new client that pages (`agentToolPage=50`, as `@agent-tools/client` connects) and one that does not (every run at
 * once); then the paging client reconnecting with its cursors after one new run finished: its first frame, and
 * what it receives (only the missed frames).
 */
export async function historyClients(host, P) {
  const parent = "hist-runs";
  const paged = `?agentToolPage=${P.historyPage}`;
  const fresh = await replayOnce(host, parent, paged, { deflate: false });
  const whole = await replayOnce(host, parent, "", { deflate: false });
  const cursors = cursorsFrom(fresh.framesSeen);
  const runId = `hist-missed-${Date.now()}`;
  await host.call("run", { parent, runId, count: P.w1Chunks });
  const again = await replayOnce(host, parent, `${paged}&${cursors.slice(1)}`, { deflate: false });
  const shape = (rep) => ({
    frames: rep.frames,
    runs: new Set(rep.framesSeen.map((frame) => frame.runId)).size,
    bytes: rep.bytes,
    connectToFirstMs: rep.connectToFirstMs,
    connectToDoneMs: rep.connectToDoneMs,
    ...(rep.error ? { refused: rep.error } : {}),
  });
  return {
    retainedRuns: P.historyRuns,
    page: P.historyPage,
    newClient: shape(fresh),
    newClientWithoutPaging: shape(whole),
    reconnectAfterOneNewRun: {
      cursorQueryBytes: cursors.length,
      ...shape(again),
      // Only the missed run's frames (started, its chunks, its terminal), nothing of the runs it held.
      onlyMissed: again.framesSeen.every((frame) => frame.runId === runId),
      missedRunFrames: again.framesSeen.filter((frame) => frame.runId === runId).length,
    },
  };
}
