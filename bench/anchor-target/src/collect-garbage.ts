/**
 * A full garbage collection of the isolate, when workerd's V8 runs with `--expose-gc` (pnpm bench's fan-out hosts set
 * MINIFLARE_WORKERD_V8_FLAGS; workerd's inspector does not answer `HeapProfiler.collectGarbage`), so that a heap
 * figure starts from what is live. Answers whether it ran.
 *
 * Two collections with a task between them: what native code wraps (a SQL cursor, a stream, an RPC stub) is only
 * let go by a collection after the task that ran the first one's weak callbacks. One `gc()` right after a fan-out of
 * 1 000 children left ~90 MiB of such garbage counted as live (a second one, a task later: ~5 MiB).
 */
export async function collectGarbage(): Promise<{ collected: boolean }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return { collected: false };
  gc();
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  return { collected: true };
}
