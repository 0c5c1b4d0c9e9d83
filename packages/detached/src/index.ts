// @agent-tools/detached: what a user of the package writes (its README's examples and API). What the workspace's own
// packages share is at "@agent-tools/detached/internal": not API.

// detach
export { createDetachedRuns } from "./detach-run.js";
// stored state and the delivery ledger
export type { DeliveryLedger } from "./detached-state.js";
export { readDetachedState } from "./detached-state.js";
