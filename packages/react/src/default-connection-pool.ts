import { type AgentToolConnectionPool, createAgentToolConnectionPool } from "@agent-tools/client";

let pool: AgentToolConnectionPool | null = null;

/**
 * @internal The pool behind `{ url }` options without a `pool`: created on first use (importing the package opens
 * nothing), with the client's defaults (global `WebSocket`, system timers, a 1 s grace).
 */
export function defaultConnectionPool(): AgentToolConnectionPool {
  pool ??= createAgentToolConnectionPool();
  return pool;
}
