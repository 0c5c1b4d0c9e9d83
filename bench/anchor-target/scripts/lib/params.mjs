// The workloads' parameters, from the environment (bench/README.md, "Knobs"): shared by `pnpm bench` and
// scripts/profile.mjs.

/** A number from the environment, or `fallback` when it is unset or not a number. */
export const knob = (name, fallback) => {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(value) ? value : fallback;
};

export function benchParams() {
  return {
    w1Runs: knob("BENCH_R", 50),
    w1Chunks: knob("BENCH_W1_C", 10),
    w1Warmup: 3,
    w2Chunks: knob("BENCH_W2_C", 2000),
    w3Runs: knob("BENCH_W3_RUNS", 20),
    w3Chunks: knob("BENCH_W3_C", 50),
    w4Runs: knob("BENCH_W4_K", 50),
    w4Chunks: knob("BENCH_W4_C", 50),
    w5Chunks: knob("BENCH_W5_C", 100),
    w5GrowthRuns: knob("BENCH_W5_GROWTH", 100),
    reps: knob("BENCH_REPS", 7),
    coldReps: knob("BENCH_COLD_REPS", 2),
    reconcileLargeRuns: knob("BENCH_RECONCILE_LARGE", 10_000),
    reconcileDueInMs: knob("BENCH_RECONCILE_DUE_IN_MS", 4000),
    memoryRuns: knob("BENCH_MEMORY_RUNS", 10_000),
    memoryChunks: knob("BENCH_MEMORY_C", 10),
    memoryReps: knob("BENCH_MEMORY_REPS", 2),
    stopReps: knob("BENCH_STOP_REPS", 5),
    stopTop: knob("BENCH_STOP_TOP", 2),
    stopBranches: knob("BENCH_STOP_BRANCHES", 4),
    stopLeaves: knob("BENCH_STOP_LEAVES", 5),
    chatTurns: knob("BENCH_CHAT_TURNS", 20),
    fanoutSizes: (process.env["BENCH_FANOUT_SIZES"] ?? "100,1000").split(",").map(Number),
    fanoutChunks: knob("BENCH_FANOUT_C", 10),
    fanoutReps: knob("BENCH_FANOUT_REPS", 2),
    historyMessages: knob("BENCH_HISTORY_MESSAGES", 1000),
    historyChars: knob("BENCH_HISTORY_CHARS", 500),
    historyRuns: knob("BENCH_HISTORY_RUNS", 10_000),
    historyPage: knob("BENCH_HISTORY_PAGE", 50),
    retentionRuns: knob("BENCH_RETENTION_RUNS", 10_000),
    retentionMaxRuns: knob("BENCH_RETENTION_MAX_RUNS", 100),
  };
}
