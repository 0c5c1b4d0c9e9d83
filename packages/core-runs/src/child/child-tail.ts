import type { UIMessageChunk } from "ai";
import type { TailListener } from "../log/live-run-log.js";
import { VoidedEntryFilter } from "../log/voided-entry-filter.js";
import type { RunStore } from "../ports/run-store.js";
import {
  AGENT_PROGRESS_PART,
  type AgentToolLogEntry,
  type AgentToolRunInspection,
  type AgentToolTailItem,
} from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import type { LiveRun } from "./live-run.js";

/** How many stored entries one read of a tail's drain takes (and one `entries` item carries at most). */
const MAX_TAIL_PAGE = 500;

/** What a child tail reads: the run's record (waking a cut-off run), its turn if live here, its stored log. */
export type ChildTailSource = {
  readonly store: RunStore;
  wake(runId: string): Promise<RunRecord | null>;
  live(runId: string): LiveRun | undefined;
  inspection(record: RunRecord): AgentToolRunInspection;
};

export type ChildTailOptions = { afterSequence?: number; signal?: AbortSignal; onOpen?: () => void };

/**
 * A run's log entries after `afterSequence`, then live ones, then one `terminal` item. Subscribes to the live turn
 * before draining the stored log, so no entry is lost or doubled across the edge (entries are deduped by sequence).
 * The stored entries a step reset voids are left out (the reset itself is sent).
 * Stopping the tail (cancelling the stream or aborting `signal`) never cancels the run. A tail of an unknown run ends
 * at once.
 * @internal
 */
export function openChildTail(
  source: ChildTailSource,
  runId: string,
  options: ChildTailOptions = {},
): ReadableStream<AgentToolTailItem> {
  let cursor = options.afterSequence ?? 0;
  let unsubscribe = () => {};
  let closed = false;
  const close = (controller: ReadableStreamDefaultController<AgentToolTailItem>) => {
    if (closed) return;
    closed = true;
    unsubscribe();
    options.signal?.removeEventListener("abort", onAbort);
    try {
      controller.close();
    } catch {
      // already closed or cancelled by the reader
    }
  };
  let onAbort = () => {};
  return new ReadableStream<AgentToolTailItem>({
    start: async (controller) => {
      onAbort = () => close(controller);
      if (options.signal?.aborted) return close(controller);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const record = await source.wake(runId);
      try {
        options.onOpen?.();
      } catch {
        // the caller's notification; the tail goes on
      }
      if (!record || closed) return close(controller);
      // Subscribe before draining: entries written during the drain are buffered, then deduped by sequence.
      const live = source.live(runId);
      const buffered: AgentToolTailItem[] = [];
      let draining = true;
      const deliver = (item: AgentToolTailItem) => {
        if (closed) return;
        if (item.type === "entries") {
          const after = cursor;
          const fresh = item.entries.filter((entry) => entry.sequence > after);
          const last = fresh.at(-1);
          if (!last) return;
          cursor = last.sequence;
          controller.enqueue(fresh.length === item.entries.length ? item : { type: "entries", entries: fresh });
          return;
        }
        controller.enqueue(item);
        if (item.type === "terminal") close(controller);
      };
      if (live) {
        const listener: TailListener = (item) => (draining ? buffered.push(item) : deliver(item));
        unsubscribe = live.log.subscribe(listener);
        live.isTailExpected = false;
      }
      // The stored log goes out without the entries a step reset voids (a reader before them never needs them).
      const filter = new VoidedEntryFilter();
      const deliverKept = (entries: readonly AgentToolLogEntry[]) => {
        for (let start = 0; start < entries.length; start += MAX_TAIL_PAGE) {
          deliver({ type: "entries", entries: entries.slice(start, start + MAX_TAIL_PAGE) });
        }
      };
      try {
        let readUpTo = cursor;
        for (;;) {
          const page = await source.store.readLog(runId, { afterSequence: readUpTo, limit: MAX_TAIL_PAGE });
          readUpTo = page.at(-1)?.sequence ?? readUpTo;
          deliverKept(filter.push(page));
          if (page.length < MAX_TAIL_PAGE || closed) break;
        }
        deliverKept(filter.flush());
      } catch (error) {
        if (!closed) controller.error(error);
        closed = true;
        unsubscribe();
        return;
      }
      draining = false;
      // A tail that attaches mid-run starts from the latest progress (ephemeral frames sent before it are gone) —
      // unless that progress still waits behind entries being written: it then comes in its place, after them.
      const progress = live?.progress;
      if (live && progress && !closed && !live.log.hasEphemeralWaiting) {
        const body = { type: AGENT_PROGRESS_PART, data: progress, transient: true } as unknown as UIMessageChunk;
        deliver({ type: "progress", body, at: progress.at, catchUp: true });
      }
      for (const item of buffered.splice(0)) deliver(item);
      if (!live && !closed) {
        const final = (await source.store.getRun(runId)) ?? record;
        deliver({ type: "terminal", inspection: source.inspection(final) });
      }
    },
    cancel: () => {
      closed = true;
      unsubscribe();
      options.signal?.removeEventListener("abort", onAbort);
    },
  });
}
