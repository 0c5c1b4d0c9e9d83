// W1–W3 taken run by run across the targets: each round runs one repetition on every target, one right after the
// other (starting one target later each round, so none is always first), so whatever else loads the machine at that
// moment weighs on all of them and the ratios within a sitting cancel it. The anchor harness instead runs one target
// for a minute or more, then the next: its ratios drift with the load (0.99–2.41 for the same code).
import { describe, interquartileMean, round } from "./stats.mjs";
import { w2Once, w2Summary } from "./workloads.mjs";

/**
 * `count` rounds; each calls every step once, in turn, starting one step later than the round before.
 * @template T
 * @param {number} count
 * @param {Record<string, ((round: number) => Promise<T>) | null>} steps a null step is left out (a target not running)
 * @returns {Promise<Record<string, T[]>>}
 */
export async function rounds(count, steps) {
  const keys = Object.keys(steps).filter((key) => steps[key]);
  /** @type {Record<string, T[]>} */
  const out = Object.fromEntries(keys.map((key) => [key, []]));
  for (let round = 0; round < count; round += 1) {
    for (let offset = 0; offset < keys.length; offset += 1) {
      const key = /** @type {string} */ (keys[(round + offset) % keys.length]);
      out[key]?.push(await /** @type {(round: number) => Promise<T>} */ (steps[key])(round));
    }
  }
  return out;
}

/** One W1 series (after its warm-up runs): in-DO and Node-side ms, each run's in-DO ms kept for the ratios. */
function w1Series(P, calls) {
  const statuses = {};
  for (const { body } of calls) statuses[body.status] = (statuses[body.status] ?? 0) + 1;
  const timed = calls.slice(P.w1Warmup);
  const inner = timed.map(({ body }) => body.ms);
  return {
    chunksPerRun: P.w1Chunks,
    runs: timed.length,
    statuses,
    allCompleted: statuses.completed === calls.length,
    innerMs: describe(inner),
    innerMsInterquartileMean: round(interquartileMean(inner)),
    outerMs: describe(timed.map(({ ms }) => ms)),
    innerMsSamples: inner,
  };
}

/**
 * W1, run by run: an awaited run of C chunks on ours (stub child), the anchor, the real child; beside them the
 * floors in the raw pipe: a round trip to a new Durable Object (`children` mode, one run: one new object, one RPC,
 * frames sent, a row kept) and `streamText` alone in its object (the real child's turn without a child).
 * @param {{ ours: any, anchor: any, raw: any, realChild: any }} hosts `anchor` may be null
 * @returns {Promise<{ ours: any, anchor?: any, realChild: any, rawNewObject: any, rawStreamText: any }>}
 */
export async function w1(hosts, P) {
  const count = P.w1Chunks;
  const run = (host, parent) => (round) => host.call("run", { parent, runId: `${parent}-${round}`, count });
  const calls = await rounds(P.w1Warmup + P.w1Runs, {
    ours: run(hosts.ours, "w1"),
    anchor: hosts.anchor ? run(hosts.anchor, "w1") : null,
    realChild: run(hosts.realChild, "w1"),
    rawNewObject: (round) =>
      hosts.raw.call("fanout", { parent: "w1-new-object", prefix: `n${round}`, runs: 1, count, mode: "children" }),
    rawStreamText: (round) =>
      hosts.raw.call("run", { parent: "w1-streamText", runId: `w1-st-${round}`, count, mode: "streamText" }),
  });
  return /** @type {any} */ (
    Object.fromEntries(Object.entries(calls).map(([key, series]) => [key, w1Series(P, series)]))
  );
}

/**
 * W2, run by run: one run of C chunks with one client connected, on ours, the anchor, the raw pipe (its frames made
 * in its object, no child), the real child and `streamText` alone in the raw pipe's object.
 * @param {{ ours: any, anchor: any, raw: any, realChild: any }} hosts @param {string} name @param {boolean} deflate
 * @returns {Promise<{ ours: any, anchor?: any, raw: any, realChild: any, rawStreamText: any }>}
 */
export async function w2(hosts, P, name, deflate) {
  const once = (host, prefix, mode) => (round) =>
    w2Once(host, P, `${name}-${prefix}${round}`, mode ? { deflate, mode } : { deflate });
  const reps = await rounds(P.reps, {
    ours: once(hosts.ours, ""),
    anchor: hosts.anchor ? once(hosts.anchor, "") : null,
    raw: once(hosts.raw, ""),
    realChild: once(hosts.realChild, ""),
    rawStreamText: once(hosts.raw, "st-", "streamText"),
  });
  return /** @type {any} */ (
    Object.fromEntries(
      Object.entries(reps).map(([key, series]) => [
        key,
        { ...w2Summary(P, series), chunksPerSecSamples: series.map((rep) => rep.chunksPerSec) },
      ]),
    )
  );
}

/**
 * W3, run by run: N concurrent awaited runs of C chunks on a fresh parent each repetition, on ours, the anchor, the
 * real child; the raw pipe's N new objects at once (`children`) and N `streamText` turns at once.
 * @param {{ ours: any, anchor: any, raw: any, realChild: any }} hosts
 * @returns {Promise<{ ours: any, anchor?: any, realChild: any, rawChildren: any, rawStreamText: any }>}
 */
export async function w3(hosts, P) {
  const fanout = (host, kind, mode) => async (round) => {
    const parent = `w3-${kind}-${round}`;
    await host.call("ping", { parent });
    const { body, ms } = await host.call("fanout", {
      parent,
      prefix: parent,
      runs: P.w3Runs,
      count: P.w3Chunks,
      ...(mode ? { mode } : {}),
    });
    return { body, ms };
  };
  const reps = await rounds(P.reps, {
    ours: fanout(hosts.ours, "stub"),
    anchor: hosts.anchor ? fanout(hosts.anchor, "stub") : null,
    realChild: fanout(hosts.realChild, "stub"),
    rawChildren: fanout(hosts.raw, "children", "children"),
    rawStreamText: fanout(hosts.raw, "streamText", "streamText"),
  });
  return /** @type {any} */ (
    Object.fromEntries(
      Object.entries(reps).map(([key, series]) => {
        const inner = series.map(({ body }) => body.ms);
        return [
          key,
          {
            runs: P.w3Runs,
            chunksPerRun: P.w3Chunks,
            reps: series.length,
            statuses: series[0]?.body.statuses,
            allCompleted: series.every(({ body }) => body.statuses?.completed === P.w3Runs),
            errors: series.flatMap(({ body }) => body.errors ?? []).slice(0, 3),
            innerWallMs: describe(inner),
            outerWallMs: describe(series.map(({ ms }) => ms)),
            innerWallMsSamples: inner,
          },
        ];
      }),
    )
  );
}
