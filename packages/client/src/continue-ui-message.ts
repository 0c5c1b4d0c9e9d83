import type { UIMessageChunk } from "ai";
import {
  applyUIMessageChunk,
  createUIMessageAssembly,
  type UIMessageAssembly,
  type UIMessageParts,
} from "./apply-ui-message-chunk.js";

/**
 * An assembly that goes on from parts assembled elsewhere (e.g. the assistant message a child sent on drill-in),
 * for {@link applyContinuingChunk}.
 */
export function continueUIMessageAssembly(messageId: string, parts: UIMessageParts): UIMessageAssembly {
  return { ...createUIMessageAssembly(messageId), parts };
}

const STREAMING_KIND = {
  "text-delta": "text",
  "text-end": "text",
  "reasoning-delta": "reasoning",
  "reasoning-end": "reasoning",
} as const;

/**
 * {@link applyUIMessageChunk} on an assembly that may have started from a snapshot of parts. A snapshot's parts
 * keep no chunk ids, so a text (or reasoning) part still streaming in it cannot be named by the deltas that go on
 * with it; here the first delta or end of an id the assembly does not know takes over the last such part that no
 * id holds yet. With one part streaming at a time (what models send) a snapshot taken mid-text goes on seamlessly.
 */
export function applyContinuingChunk(assembly: UIMessageAssembly, chunk: UIMessageChunk): UIMessageAssembly {
  const kind = Object.hasOwn(STREAMING_KIND, chunk.type)
    ? STREAMING_KIND[chunk.type as keyof typeof STREAMING_KIND]
    : null;
  const id = (chunk as { id?: unknown }).id;
  if (kind === null || typeof id !== "string") return applyUIMessageChunk(assembly, chunk);
  const active = kind === "text" ? assembly.activeTextParts : assembly.activeReasoningParts;
  if (Object.hasOwn(active, id)) return applyUIMessageChunk(assembly, chunk);
  const held = new Set(Object.values(active));
  let orphan = -1;
  for (let index = assembly.parts.length - 1; index >= 0; index--) {
    const part = assembly.parts[index] as { type: string; state?: unknown };
    if (part.type === kind && part.state === "streaming" && !held.has(index)) {
      orphan = index;
      break;
    }
  }
  if (orphan < 0) return applyUIMessageChunk(assembly, chunk);
  const adopted: UIMessageAssembly =
    kind === "text"
      ? { ...assembly, activeTextParts: { ...active, [id]: orphan } }
      : { ...assembly, activeReasoningParts: { ...active, [id]: orphan } };
  return applyUIMessageChunk(adopted, chunk);
}
