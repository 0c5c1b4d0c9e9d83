import type { UIMessageChunk } from "ai";

/** What a benchmark run asks its child for: C chunks, text deltas of `deltaChars` characters (default 8). */
export type StubInput = { count: number; deltaChars?: number };

/** Reads a run's input defensively: anything malformed means zero chunks. */
export function readStubInput(input: unknown): { count: number; deltaChars: number } {
  const value = (input ?? {}) as Partial<StubInput>;
  const count = Number.isSafeInteger(value.count) && (value.count ?? 0) > 0 ? (value.count as number) : 0;
  const deltaChars =
    Number.isSafeInteger(value.deltaChars) && (value.deltaChars ?? 0) > 0 ? (value.deltaChars as number) : 8;
  return { count, deltaChars };
}

/** The text of the stub's `index`-th delta: the index in base 36, zero-padded to `deltaChars` characters. */
export function stubDeltaText(index: number, deltaChars = 8): string {
  return index.toString(36).padStart(deltaChars, "0").slice(-deltaChars);
}

/**
 * The deterministic turn of the harness's stub child: `text-start`, C−2 `text-delta`s of `deltaChars` characters
 * (the index in base 36, zero-padded), `text-end`. Fewer than 3 chunks: deltas only. Same bodies as the anchor's
 * stub child, so frames carry the same payload.
 */
export function stubChunks(count: number, deltaChars = 8): UIMessageChunk[] {
  const id = "t0";
  const delta = (index: number): UIMessageChunk => ({
    type: "text-delta",
    id,
    delta: stubDeltaText(index, deltaChars),
  });
  if (count < 3) return Array.from({ length: count }, (_, index) => delta(index));
  const chunks: UIMessageChunk[] = [{ type: "text-start", id }];
  for (let index = 0; index < count - 2; index += 1) chunks.push(delta(index));
  chunks.push({ type: "text-end", id });
  return chunks;
}

/** The stub's summary (the anchor's wording), so terminal frames are the same size on both targets. */
export function stubSummary(count: number): string {
  return `stub emitted ${count} chunks`;
}
