import type { ChildRef } from "@agent-tools/core-runs/internal";
import { type AgentToolEventFrame, readUsageChunk } from "@agent-tools/core-runs/protocol";

/**
 * One item of a feed of what a run dispatched, at every depth below it: a frame of a run below, with `path` the run
 * ids from the run's own dispatched run down to the run that dispatched the frame's run (`[]`: the run dispatched it
 * itself); then, once, `replayed`: what was there when the feed opened has all come.
 */
export type DescendantItem = { type: "frame"; path: string[]; frame: AgentToolEventFrame } | { type: "replayed" };

/** Opens the feed of what a run dispatched (the run's child object, over RPC). */
export type OpenDescendants = (run: ChildRef, follow: boolean) => Promise<ReadableStream<DescendantItem>>;

/**
 * The feeds of the runs one level holds (a parent's own runs, or a child's dispatched ones) that dispatched runs
 * themselves: each opened once, when the run's usage first counts a dispatched run (`runs > 0`), and read into `push`
 * with the run's id in front of each item's path. Only what someone follows pays for this: a run's child is asked only
 * for a feed that is read.
 * @internal
 */
export class DescendantFeeds {
  readonly #open: OpenDescendants;
  readonly #push: (item: Extract<DescendantItem, { type: "frame" }>) => void;
  readonly #follow: boolean;
  readonly #types = new Map<string, string>();
  readonly #feeds = new Map<string, { replayed: Promise<void>; ended: Promise<void> }>();
  readonly #readers = new Set<ReadableStreamDefaultReader<DescendantItem>>();
  #closed = false;

  constructor(options: {
    open: OpenDescendants;
    push: (item: Extract<DescendantItem, { type: "frame" }>) => void;
    follow: boolean;
  }) {
    this.#open = options.open;
    this.#push = options.push;
    this.#follow = options.follow;
  }

  /** A run this level holds, and whether it dispatched runs (its usage so far). */
  known(run: ChildRef & { usage?: { runs: number } }): void {
    this.#types.set(run.runId, run.agentType);
    if ((run.usage?.runs ?? 0) > 0) this.#watch(run);
  }

  /** A frame of a run this level holds: its start names its agent type; a usage chunk may say it dispatched. */
  seen(frame: AgentToolEventFrame): void {
    const { event } = frame;
    if (event.kind === "started") {
      this.#types.set(event.runId, event.agentType);
      return;
    }
    if (event.kind !== "chunk") return;
    const usage = readUsageChunk(typeof event.body === "string" ? safeParse(event.body) : event.body);
    const agentType = this.#types.get(event.runId);
    if (usage && usage.runs > 0 && agentType !== undefined) this.#watch({ agentType, runId: event.runId });
  }

  /** Resolves once every feed opened so far has sent what was there when it opened. */
  async replayed(): Promise<void> {
    await Promise.all([...this.#feeds.values()].map((feed) => feed.replayed));
  }

  /** Resolves once every feed opened so far has ended (the runs and all below them are over). */
  async ended(): Promise<void> {
    let count = -1;
    // A feed may open while others end: wait until no new one came.
    while (count !== this.#feeds.size) {
      count = this.#feeds.size;
      await Promise.all([...this.#feeds.values()].map((feed) => feed.ended));
    }
  }

  /** Stop reading every feed (the stream that follows them ended). */
  close(): void {
    this.#closed = true;
    for (const reader of this.#readers) void reader.cancel().catch(() => undefined);
    this.#readers.clear();
  }

  #watch(run: ChildRef): void {
    if (this.#feeds.has(run.runId) || this.#closed) return;
    let replayedNow: () => void = () => undefined;
    const replayed = new Promise<void>((resolve) => {
      replayedNow = resolve;
    });
    const ended = this.#read(run, replayedNow).finally(replayedNow);
    this.#feeds.set(run.runId, { replayed, ended });
  }

  async #read(run: ChildRef, replayed: () => void): Promise<void> {
    let reader: ReadableStreamDefaultReader<DescendantItem>;
    try {
      reader = (await this.#open(run, this.#follow)).getReader();
    } catch {
      // A child that cannot be asked (gone, or of a version without the feed): its runs below are not shown.
      return;
    }
    if (this.#closed) {
      await reader.cancel().catch(() => undefined);
      return;
    }
    this.#readers.add(reader);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value.type === "replayed") replayed();
        else this.#push({ type: "frame", path: [run.runId, ...value.path], frame: value.frame });
      }
    } catch {
      // the feed broke (the child restarted): what came stays
    } finally {
      this.#readers.delete(reader);
    }
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
