import type { UIMessageChunk } from "ai";

type ChunkOf<TType extends UIMessageChunk["type"]> = Extract<UIMessageChunk, { type: TType }>;

/** A tool call the model decided (its input is complete) that this host, not the provider, executes. */
export function isDecidedToolCall(chunk: UIMessageChunk): chunk is ChunkOf<"tool-input-available"> {
  return chunk.type === "tool-input-available" && chunk.providerExecuted !== true;
}

/** A preliminary tool output (`preliminary: true`): superseded by the next one of its tool call, never stored. */
export function isPreliminaryOutput(chunk: UIMessageChunk): chunk is ChunkOf<"tool-output-available"> {
  return chunk.type === "tool-output-available" && chunk.preliminary === true;
}

/** A tool call's final outcome: its output, its error, or its denial. */
export function isToolOutcome(
  chunk: UIMessageChunk,
): chunk is ChunkOf<"tool-output-available" | "tool-output-error" | "tool-output-denied"> {
  return (
    chunk.type === "tool-output-available" || chunk.type === "tool-output-error" || chunk.type === "tool-output-denied"
  );
}

/**
 * About how many bytes a chunk adds to the stored answer: the text of a delta (the bulk of any answer) plus its
 * envelope, else its JSON length. Cheap on the hot path (no serialization of a delta); an estimate, as the answer
 * limit says.
 */
export function approximateChunkBytes(chunk: UIMessageChunk): number {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return chunk.delta.length + 48;
    case "tool-input-delta":
      return chunk.inputTextDelta.length + 64;
    default:
      return JSON.stringify(chunk)?.length ?? 0;
  }
}
