import type { UIMessageChunk } from "ai";
import { type AgentToolLogEntry, stepResetChunk } from "../protocol/index.js";
import { bareDeltaChunk, bareDeltaFields, type DeltaType, hasKeyCount, readDelta } from "./log-deltas.js";
import { isMergedEntry, type MergedLogEntry } from "./merged-log-entry.js";

/** `[type, part, text, lengths]`: consecutive deltas of one part; `lengths` is a run-length list (`encodeCounts`). */
type DeltaSegment = [DeltaType, string, string, string];
/** `[0, rest]`: an entry stored whole but for its sequence (an envelope or a body the other forms do not cover). */
type WholeSegment = [0, Omit<AgentToolLogEntry, "sequence">];
/**
 * `[1, type, part, text, from, last]`: a merged delta of a compacted log (`MergedLogEntry`), with a seventh element
 * `1` when its text is the run's summary; `[2, …]` the same after the step reset from `from` at the sequence before
 * it (the pair `compactRunLog` writes for a run of deltas).
 */
type MergedSegment =
  | [1 | 2, DeltaType, string, string, number, number]
  | [1 | 2, DeltaType, string, string, number, number, 1];
/**
 * One stored segment: a chunk body (an object: one entry), a positive number (that many sequences skipped), a
 * delta segment, a whole entry or a merged delta.
 */
type Segment = UIMessageChunk | number | DeltaSegment | WholeSegment | MergedSegment;

/**
 * The stored form (version 1). `s`: the first entry's sequence; `t`: the first timed entry's `at`; `a`: each timed
 * entry's `at` minus the previous one's, run-length encoded; `g`: the segments in sequence order. Sequences are
 * implicit (one per entry, skips aside), and so is every `at` but the first.
 */
type EncodedLog = { v: 1; s: number; t: number; a: string; g: Segment[] };

/**
 * Encode log entries (in ascending, distinct sequence order; gaps are allowed) into the compact text a store keeps:
 * no per-entry envelope (sequences are implicit, times are differences), and the consecutive text, reasoning and
 * tool-input deltas of one part as one string with the lengths of its pieces. Lossless: `decodeLogEntries` gives back
 * entries equal to these, bodies and envelopes whole (an entry or body with fields of its own is stored as it is).
 *
 * @example
 * const text = encodeLogEntries(entries); // store it
 * decodeLogEntries(text); // equal to entries
 */
export function encodeLogEntries(entries: readonly AgentToolLogEntry[]): string {
  const first = entries[0];
  if (first === undefined) throw new RangeError("encodeLogEntries: no entries to encode");
  const segments: Segment[] = [];
  // Run-length lists built as the entries come (no list of every time or length): this runs once per burst and row.
  const times = new CountWriter();
  let base: number | undefined;
  let previousAt = 0;
  let nextSequence = first.sequence;
  let open: { segment: DeltaSegment; lengths: CountWriter } | null = null;
  const closeOpen = () => {
    if (open === null) return;
    open.segment[3] = open.lengths.text();
    open = null;
  };
  for (const entry of entries) {
    if (!Number.isSafeInteger(entry.sequence) || entry.sequence < nextSequence) {
      throw new RangeError(
        `encodeLogEntries: sequences must be whole numbers in ascending order, got ${entry.sequence} after ${nextSequence - 1}`,
      );
    }
    if (entry.sequence > nextSequence) {
      closeOpen();
      segments.push(entry.sequence - nextSequence);
    }
    nextSequence = entry.sequence + 1;
    const merged = mergedOf(entry);
    if (merged !== null) {
      closeOpen();
      const previous = segments.at(-1);
      const pairsWithReset =
        isPlainBody(previous) && JSON.stringify(previous) === JSON.stringify(stepResetChunk(merged.merged.from));
      if (pairsWithReset) segments.pop();
      base ??= entry.at;
      times.push(entry.at - (times.isEmpty ? base : previousAt));
      previousAt = entry.at;
      const form = pairsWithReset ? 2 : 1;
      const { from, last, summary } = merged.merged;
      segments.push(
        summary === true
          ? [form, merged.type, merged.part, merged.text, from, last, 1]
          : [form, merged.type, merged.part, merged.text, from, last],
      );
      continue;
    }
    if (!isPlainEnvelope(entry) || !isPlainBody(entry.body)) {
      closeOpen();
      const { sequence: _sequence, ...rest } = entry;
      segments.push([0, rest]);
      continue;
    }
    base ??= entry.at;
    times.push(entry.at - (times.isEmpty ? base : previousAt));
    previousAt = entry.at;
    // A bare delta is read in place (no object made per entry).
    const body = entry.body as unknown as Record<string, string>;
    const fields = bareDeltaFields(body);
    if (fields === null) {
      closeOpen();
      segments.push(entry.body);
      continue;
    }
    const type = body["type"] as DeltaType;
    const part = body[fields.part] as string;
    const text = body[fields.text] as string;
    if (open !== null && open.segment[0] === type && open.segment[1] === part) {
      open.segment[2] += text;
      open.lengths.push(text.length);
      continue;
    }
    closeOpen();
    const lengths = new CountWriter();
    lengths.push(text.length);
    open = { segment: [type, part, text, ""], lengths };
    segments.push(open.segment);
  }
  closeOpen();
  const encoded: EncodedLog = { v: 1, s: first.sequence, t: base ?? 0, a: times.text(), g: segments };
  return JSON.stringify(encoded);
}

/**
 * Decode what `encodeLogEntries` wrote, or a plain JSON array of entries (the form stores wrote before it). Throws a
 * `SyntaxError` or a `RangeError` on anything else.
 */
export function decodeLogEntries(text: string): AgentToolLogEntry[] {
  return decodeParsedLog(JSON.parse(text) as unknown);
}

/**
 * `decodeLogEntries` of a value parsed already (an encoded log inside a larger JSON text: a tail item on the wire).
 * Throws a `RangeError` on anything but an encoded log or an array of entries.
 */
export function decodeParsedLog(parsed: unknown): AgentToolLogEntry[] {
  if (Array.isArray(parsed)) return parsed as AgentToolLogEntry[];
  if (!isEncodedLog(parsed)) throw new RangeError("decodeLogEntries: not an encoded log");
  // The times are read as the entries are made (a run-length list: no array of them).
  const times = new CountReader(parsed.a);
  const entries: AgentToolLogEntry[] = [];
  let sequence = parsed.s;
  let at = parsed.t;
  const nextAt = () => {
    if (!times.hasNext()) throw new RangeError("decodeLogEntries: fewer times than entries");
    at += times.next();
    return at;
  };
  for (const segment of parsed.g) {
    if (typeof segment === "number") {
      sequence += segment;
    } else if (!Array.isArray(segment)) {
      entries.push({ sequence, body: segment, at: nextAt() });
      sequence += 1;
    } else if (segment[0] === 0) {
      entries.push({ ...(segment[1] as Omit<AgentToolLogEntry, "sequence">), sequence } as AgentToolLogEntry);
      sequence += 1;
    } else if (segment[0] === 1 || segment[0] === 2) {
      const [form, type, part, text, from, last, summary] = segment as MergedSegment;
      if (form === 2) {
        entries.push({ sequence, body: stepResetChunk(from), at: nextAt() });
        sequence += 1;
      }
      const merged: MergedLogEntry = {
        sequence,
        body: bareDeltaChunk(type, part, text),
        at: nextAt(),
        merged: { from, last, ...(summary === 1 ? { summary: true as const } : {}) },
      };
      entries.push(merged);
      sequence += 1;
    } else {
      const [type, part, joined, lengths] = segment as DeltaSegment;
      const pieces = new CountReader(lengths);
      let offset = 0;
      while (pieces.hasNext()) {
        const end = offset + pieces.next();
        entries.push({ sequence, body: bareDeltaChunk(type, part, joined.slice(offset, end)), at: nextAt() });
        offset = end;
        sequence += 1;
      }
    }
  }
  times.drain();
  return entries;
}

/**
 * Writes a list of whole numbers as text, one value at a time: comma-separated, a value repeated `n` times written
 * `value*n` (`8*98` for 98 eights); empty for an empty list. `CountReader` reads it.
 */
class CountWriter {
  #text = "";
  #value = 0;
  /** How many times `#value` came last in a row (0: no value yet). */
  #repeat = 0;

  /** True until a value is pushed. */
  get isEmpty(): boolean {
    return this.#repeat === 0 && this.#text === "";
  }

  push(value: number): void {
    if (this.#repeat > 0 && value === this.#value) {
      this.#repeat += 1;
      return;
    }
    this.#writeRun();
    this.#value = value;
    this.#repeat = 1;
  }

  /** The list's text (the writer is done). */
  text(): string {
    this.#writeRun();
    return this.#text;
  }

  #writeRun(): void {
    if (this.#repeat === 0) return;
    const token = this.#repeat === 1 ? String(this.#value) : `${this.#value}*${this.#repeat}`;
    this.#text = this.#text === "" ? token : `${this.#text},${token}`;
    this.#repeat = 0;
  }
}

/**
 * Reads `encodeCounts`' text one value at a time, without expanding a value repeated `n` times into a list: its
 * comma-separated tokens (none in ""), each `value` or `value*repeat`. Throws a `RangeError` on a malformed token.
 */
class CountReader {
  readonly #text: string;
  /** Where the next token starts; -1 once every token is read. */
  #offset: number;
  #value = 0;
  #left = 0;

  constructor(text: string) {
    this.#text = text;
    this.#offset = text === "" ? -1 : 0;
  }

  hasNext(): boolean {
    return this.#left > 0 || this.#offset !== -1;
  }

  next(): number {
    if (this.#left === 0) this.#readToken();
    this.#left -= 1;
    return this.#value;
  }

  /** Read every value left (each token checked). */
  drain(): void {
    this.#left = 0;
    while (this.#offset !== -1) this.#readToken();
  }

  #readToken(): void {
    const text = this.#text;
    const start = this.#offset;
    const comma = text.indexOf(",", start);
    const end = comma === -1 ? text.length : comma;
    const star = text.indexOf("*", start);
    const hasRepeat = star !== -1 && star < end;
    const value = Number(text.slice(start, hasRepeat ? star : end));
    const repeat = hasRepeat ? Number(text.slice(star + 1, end)) : 1;
    if (!Number.isSafeInteger(value) || !Number.isSafeInteger(repeat) || repeat < 1) {
      throw new RangeError(`decodeLogEntries: malformed number list ${JSON.stringify(text)}`);
    }
    this.#offset = comma === -1 ? -1 : comma + 1;
    this.#value = value;
    this.#left = repeat;
  }
}

/** An entry made of `sequence`, `body` and a whole-number `at` and nothing else: its time goes in the time list. */
function isPlainEnvelope(entry: AgentToolLogEntry): boolean {
  return Number.isSafeInteger(entry.at) && hasKeyCount(entry, 3) && "body" in entry;
}

/** A body stored as the segment itself: an object with a string `type` (never an array or a number). */
function isPlainBody(body: unknown): body is UIMessageChunk {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    typeof (body as { type?: unknown }).type === "string"
  );
}

/** The delta of a merged entry stored in its own form: nothing but its fields, a whole-number time, a bare delta. */
function mergedOf(
  entry: AgentToolLogEntry,
): { type: DeltaType; part: string; text: string; merged: MergedLogEntry["merged"] } | null {
  if (!isMergedEntry(entry) || !Number.isSafeInteger(entry.at) || Object.keys(entry).length !== 4) return null;
  const { from, last, summary } = entry.merged;
  const keys = summary === true ? 3 : 2;
  if (!Number.isSafeInteger(last) || Object.keys(entry.merged).length !== keys || !Number.isSafeInteger(from)) {
    return null;
  }
  const delta = readDelta(entry.body);
  return delta === null ? null : { ...delta, merged: entry.merged };
}

function isEncodedLog(value: unknown): value is EncodedLog {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<EncodedLog>;
  return (
    candidate.v === 1 &&
    Number.isSafeInteger(candidate.s) &&
    typeof candidate.t === "number" &&
    typeof candidate.a === "string" &&
    Array.isArray(candidate.g)
  );
}
