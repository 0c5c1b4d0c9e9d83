import { createAgentToolConnectionPool } from "@agent-tools/client";
import type { AgentToolConnectionPool } from "@agent-tools/client/internal";

let pool: AgentToolConnectionPool | null = null;

/**
 * @internal The pool behind `{ url }` options without a `pool`: created on first use (importing the package opens
 * nothing), with the client's defaults (global `WebSocket`, system timers, a 1 s grace).
 */
export function defaultConnectionPool(): AgentToolConnectionPool {
  pool ??= createAgentToolConnectionPool();
  return pool;
}
