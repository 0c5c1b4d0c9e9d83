// "@agent-tools/core-runs/testing/vitest": the RunStore and ChildTransport contracts registered as vitest tests
// (`describe` with one `it` per case). Only this subpath imports vitest; the cases themselves, and every in-memory
// port, are in "@agent-tools/core-runs/testing".
export { childTransportContract } from "./child-transport-contract.js";
export { runStoreContract } from "./run-store-contract.js";
