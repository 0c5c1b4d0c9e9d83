// A `pnpm bench` sitting's results, by target and section, as the goals read them: one that meets every goal, and
// edits of it. Shared by the tests of one sitting's goals and of several sittings'.
export const repeat = (value: number, times: number) => Array.from({ length: times }, () => value);

/** A sitting's results, by target and section (the shape `pnpm bench` gives its goals). */
export type Sitting = Record<"ours" | "anchor" | "raw" | "realChild", Record<string, Record<string, unknown>>>;

/** A sitting's results that meet every goal; `change` edits them. */
export function sitting(change: (results: Sitting) => void = () => undefined): Sitting {
  const results: Sitting = {
    ours: {
      w1: { innerMsSamples: repeat(4, 50) },
      w2: { chunksPerSecSamples: [40_000, 30_000], firstChunkMs: { median: 12 } },
      w3: { innerWallMsSamples: [100, 50] },
      chat: {
        interquartileMeans: {
          agentToolTurnMs: 10,
          plainToolTurnMs: 5,
          newDurableObjectRoundTripMs: 3.5,
          overheadBeyondNewObjectMs: 1.5,
        },
      },
      fanout: {
        sizes: [
          { calls: 100, turnMs: 300, rounds: [] },
          {
            calls: 1000,
            turnMs: 3000,
            rawChildrenMs: 2000,
            turnVersusRaw: 1.5,
            heapVersusRaw: 1.8,
            heapPeakGrowthMiB: 9,
            rawHeapPeakGrowthMiB: 5,
            rounds: [{ turnVersusRaw: 1.4 }, { turnVersusRaw: 1.6 }],
          },
        ],
      },
    },
    anchor: {
      w1: { innerMsSamples: repeat(10, 50) },
      w2: { chunksPerSecSamples: [6_000, 5_000] },
      w3: { innerWallMsSamples: [300, 200] },
    },
    raw: {
      w2: { chunksPerSecSamples: [50_000, 40_000], firstChunkMs: { median: 8 } },
      w1StreamText: { innerMsSamples: repeat(4, 10) },
      w1NewObject: { innerMsSamples: repeat(4, 10) },
    },
    realChild: {
      w1: { innerMsSamples: repeat(9, 10) },
      w2: { firstChunkMs: { median: 15 }, lastChunkMs: { median: 400 } },
    },
  };
  change(results);
  return results;
}
