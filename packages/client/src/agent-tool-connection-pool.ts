import {
  type AgentToolConnection,
  type AgentToolConnectionOptions,
  createAgentToolConnection,
} from "./agent-tool-connection.js";
import { systemClock } from "./ports/clock.js";
import { createSharedPool } from "./shared-pool.js";

export type AgentToolConnectionPoolOptions = Omit<AgentToolConnectionOptions, "url"> & {
  /** How long a connection stays open after its last lease was released (default 1 s): a remount reuses it. */
  graceMs?: number;
};

/** One user's hold on a pooled connection. Release it instead of closing the connection (others may use it). */
export type AgentToolConnectionLease = {
  readonly connection: AgentToolConnection;
  /** Let go of the connection; idempotent. */
  release(): void;
};

/** Connections shared by URL: one socket per parent, however many users. */
export type AgentToolConnectionPool = {
  /** The connection of `url` (opened by the first user), held until `release()`. */
  acquire(url: string): AgentToolConnectionLease;
  /** The open connection of `url`, if any user holds it (or it is in its grace period); holds nothing. */
  peek(url: string): AgentToolConnection | undefined;
  /** Close every connection now, held or not. */
  closeAll(): void;
};

/**
 * Create a pool of connections keyed by the parent's URL. The first `acquire` of a URL opens its connection (with
 * this pool's options), later ones share it; `graceMs` after the last lease is released it is closed, unless it
 * is acquired again first — so React StrictMode's mount → unmount → mount, or a component moving, keeps one socket.
 *
 * @example
 * const pool = createAgentToolConnectionPool();
 * const lease = pool.acquire("wss://example.com/agents/assistant/default");
 * lease.connection.subscribe(() => render(lease.connection.getSnapshot()));
 * // later
 * lease.release();
 */
export function createAgentToolConnectionPool(options: AgentToolConnectionPoolOptions = {}): AgentToolConnectionPool {
  const { graceMs = 1_000, ...connectionOptions } = options;
  const pool = createSharedPool<AgentToolConnection>({
    create: (url) => createAgentToolConnection({ ...connectionOptions, url }),
    dispose: (connection) => connection.close(),
    graceMs,
    clock: options.clock ?? systemClock,
  });
  return {
    acquire(url) {
      const lease = pool.acquire(url);
      return { connection: lease.value, release: lease.release };
    },
    peek: (url) => pool.peek(url),
    closeAll: () => pool.disposeAll(),
  };
}
