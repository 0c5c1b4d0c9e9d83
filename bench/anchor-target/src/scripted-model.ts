import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { stubDeltaText } from "./stub-chunks.js";

/**
 * The anchor harness's scripted model (its `anchor-think` target's `worker.ts`; the harness is external, see
 * bench/README.md), so that our real child and the anchor's Think child stream the same thing: for a prompt containing
 * `emit C xW` the model streams `stream-start`, `text-start`, C `text-delta`s of W characters (the stub's delta
 * texts), `text-end` and `finish`, all at once (no pacing). Anything else: 3 deltas of 8 characters. No network, no LLM.
 */
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** The user text the scripted model answers with `count` deltas of `deltaChars` characters. */
export function scriptedPrompt(count: number, deltaChars = 8): string {
  return `emit ${count} x${deltaChars}`;
}

/** A new mock model (it records its calls, so make one per turn, as the anchor's `getModel()` does). */
export function scriptedModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const match = /emit (\d+) x(\d+)/.exec(JSON.stringify(options.prompt));
      const count = match ? Number(match[1]) : 3;
      const width = match ? Number(match[2]) : 8;
      const parts: StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t0" },
      ];
      for (let index = 0; index < count; index += 1) {
        parts.push({ type: "text-delta", id: "t0", delta: stubDeltaText(index, width) });
      }
      parts.push({ type: "text-end", id: "t0" });
      parts.push({ type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}
