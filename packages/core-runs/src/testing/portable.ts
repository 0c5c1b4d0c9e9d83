// "@agent-tools/core-runs/testing/portable": kept so that existing imports go on working. It is the same module as
// "@agent-tools/core-runs/testing", which no longer needs vitest; import that instead.
export * from "./index.js";
