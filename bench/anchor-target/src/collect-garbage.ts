/**
 * A full garbage collection of the isolate, when workerd's V8 runs with `--expose-gc` (pnpm bench's fan-out hosts set
 * MINIFLARE_WORKERD_V8_FLAGS; workerd's inspector does not answer `HeapProfiler.collectGarbage`), so that a heap
 * figure starts from what is live. Answers whether it ran.
 */
export function collectGarbage(): { collected: boolean } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return { collected: gc !== undefined };
}
