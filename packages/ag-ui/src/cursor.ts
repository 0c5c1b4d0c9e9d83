import type { AgUiProjectionState } from "./projection.js";

const PREFIX = "agui2.";
const STREAM = /^[a-z0-9]{1,32}$/;
const MAX_BATCH = 1e12;

/**
 * A position in an AG-UI stream, as its SSE event ids (`id:`) carry it: the stream (named at random when it opened)
 * and how many batches of events it had sent. The same size whatever the parent holds.
 */
export type AgUiEventId = { stream: string; batch: number };

/** An event id's text: `agui2.<stream>.<batch>`. */
export function formatAgUiEventId(id: AgUiEventId): string {
  return `${PREFIX}${id.stream}.${id.batch}`;
}

/** The position an event id names, or `null` for anything that is not one. Never throws. */
export function parseAgUiEventId(text: string | null | undefined): AgUiEventId | null {
  if (typeof text !== "string" || !text.startsWith(PREFIX) || text.length > 64) return null;
  const [stream, batch, ...rest] = text.slice(PREFIX.length).split(".");
  if (stream === undefined || batch === undefined || rest.length > 0 || !STREAM.test(stream)) return null;
  if (!/^\d+$/.test(batch)) return null;
  const count = Number(batch);
  return count <= MAX_BATCH ? { stream, batch: count } : null;
}

/** Where a stream's positions are kept, so that a client that comes back with one goes on from there. */
export interface AgUiResumeStore {
  /** The projection's state after batch `batch` of stream `stream` was sent. */
  save(stream: string, batch: number, state: AgUiProjectionState): void;
  /** The state at that position, or `null` when it is not kept (never was, or no longer). */
  load(stream: string, batch: number): AgUiProjectionState | null;
}

/**
 * A resume store in memory (one per parent, in its isolate): the last `batchesPerStream` positions of the last
 * `maxStreams` streams, the oldest dropped first. A restart forgets them: a client then gets the whole stream again.
 *
 * @experimental New API: it may change without a major version.
 */
export class MemoryAgUiResumeStore implements AgUiResumeStore {
  readonly #maxStreams: number;
  readonly #batchesPerStream: number;
  /** Streams by name, least recently written first; each one's positions, oldest first (states as JSON). */
  readonly #streams = new Map<string, Array<[batch: number, state: string]>>();

  constructor(options: { maxStreams?: number; batchesPerStream?: number } = {}) {
    this.#maxStreams = options.maxStreams ?? 64;
    this.#batchesPerStream = options.batchesPerStream ?? 8;
  }

  save(stream: string, batch: number, state: AgUiProjectionState): void {
    const positions = this.#streams.get(stream) ?? [];
    this.#streams.delete(stream);
    positions.push([batch, JSON.stringify(state)]);
    this.#streams.set(stream, positions.slice(-this.#batchesPerStream));
    for (const oldest of this.#streams.keys()) {
      if (this.#streams.size <= this.#maxStreams) break;
      this.#streams.delete(oldest);
    }
  }

  load(stream: string, batch: number): AgUiProjectionState | null {
    const found = this.#streams.get(stream)?.find(([kept]) => kept === batch);
    return found ? (JSON.parse(found[1]) as AgUiProjectionState) : null;
  }
}
