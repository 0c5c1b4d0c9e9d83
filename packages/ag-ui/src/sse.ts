import { type BaseEvent, EventType } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import type { Clock, TimerHandle } from "@agent-tools/core-runs";
import { type AgUiResumeStore, formatAgUiEventId, parseAgUiEventId } from "./cursor.js";
import { AgUiProjection } from "./projection.js";
import type { AgUiSource } from "./sources.js";

/** The SSE content type of an AG-UI stream. */
export const AG_UI_SSE_CONTENT_TYPE = "text/event-stream";

/** What a replay is asked to send: what the client holds already, as the stream knows it. */
export type AgUiReplayFrom = {
  /** What the client holds of each of the parent's top-level runs (the event socket's replay cursors; empty: none). */
  cursors(): Record<string, { sequence: number; revision: number }>;
  /** How many of the stored conversation's messages it holds, and the last one's id (`count: -1`: unknown). */
  conversation(): { count: number; last?: string };
};

export type AgUiStreamOptions = {
  /** The AG-UI thread (the parent's conversation). */
  threadId: string;
  /**
   * Where the client stopped: the last event id it received (`Last-Event-ID`, or a `cursor` query parameter). A
   * stream resumed from a position the `store` keeps sends only what comes after it; from any other (forged, or no
   * longer kept) it sends everything again, starting with an empty `MESSAGES_SNAPSHOT` so the client drops what it holds.
   */
  cursor?: string | null;
  /** Where positions are kept for resuming (none: a cursor always starts the stream over). */
  store?: AgUiResumeStore;
  /** The sources carry the answer of the turn in flight, from its first chunk (see `AgUiProjectionOptions`). */
  followsAnswer?: boolean;
  /**
   * Send what the client misses (`push` each source, in order): given what it holds (`from`), e.g. the runs' frames
   * from `registry.replayAgentToolRuns(push, { cursors: from.cursors() })`.
   */
  replay(push: (source: AgUiSource) => void, from: AgUiReplayFrom): unknown;
  /** Follow live sources after the replay (returns how to stop following); none: the stream ends after the replay. */
  follow?: (push: (source: AgUiSource) => void) => () => void;
  /**
   * A run the client asked for (AG-UI's `RunAgentInput`, e.g. one whose `resume` answers interrupts): after the replay,
   * which the client holds and is not sent, AG-UI run `runId` starts, `start()` is called (what makes it go on), and
   * the stream ends with that run.
   */
  run?: { runId: string; start?: () => unknown };
  /** Stops the stream (e.g. the request's signal). */
  signal?: AbortSignal;
  /**
   * While it follows: an SSE comment every `heartbeatMs` on `clock` (a proxy keeps an idle connection), and, with
   * `maxDurationMs`, the stream's end that long after it opened (the client comes back with its last event id and goes
   * on where it stopped): a bound on a stream followed for a client that left unnoticed.
   */
  keepAlive?: { clock: Clock; heartbeatMs: number; maxDurationMs?: number };
};

/**
 * An AG-UI event stream as Server-Sent Events (`data:` lines encoded by `@ag-ui/encoder`), projected from a parent's
 * sources by an `AgUiProjection`: the replay first, then live sources (those that came during the replay are held and
 * projected after it; the projection drops what it has already sent). The replay, then each live batch, ends with an
 * `id:` — a position (`agui2.<stream>.<batch>`), the projection's state kept in `store` — so a client that
 * reconnects with it goes on without a gap and without a repeated start. A stream that is not followed ends with the
 * replay, its AG-UI run closed.
 */
export function agUiEventStream(options: AgUiStreamOptions): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder();
  const encoder = new EventEncoder();
  const position = parseAgUiEventId(options.cursor);
  const restored = position ? (options.store?.load(position.stream, position.batch) ?? null) : null;
  const projection = new AgUiProjection({
    threadId: options.threadId,
    ...(restored && restored.threadId === options.threadId ? { state: restored } : {}),
    // A client that names a position the stream cannot go on from holds a past it must drop.
    reset: !restored && typeof options.cursor === "string" && options.cursor !== "",
    followsAnswer: options.followsAnswer === true,
  });
  const stream = newStreamName();
  let batch = 0;
  let stop: (() => void) | undefined;
  let closed = false;
  let beat: TimerHandle | undefined;
  const stopBeating = () => {
    if (beat !== undefined) options.keepAlive?.clock.clearTimeout(beat);
    beat = undefined;
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const end = () => {
        if (closed) return;
        closed = true;
        stopBeating();
        stop?.();
        try {
          controller.close();
        } catch {
          // already closed or cancelled
        }
      };
      let unmarked = false;
      const send = (events: BaseEvent[], mark: boolean) => {
        if (closed) return;
        let text = "";
        for (const event of events) text += encoder.encodeSSE(event);
        unmarked ||= events.length > 0;
        if (mark && unmarked) {
          batch += 1;
          options.store?.save(stream, batch, projection.state());
          text += `id: ${formatAgUiEventId({ stream, batch })}\n\n`;
          unmarked = false;
        }
        if (text === "") return;
        try {
          controller.enqueue(bytes.encode(text));
        } catch {
          // the client went away: stop following
          end();
        }
      };
      const run = options.run;
      const isOver = () => run !== undefined && projection.runId !== run.runId;
      const held: AgUiSource[] = [];
      let replaying = true;
      if (options.follow) {
        stop = options.follow((source) => {
          if (replaying) {
            held.push(source);
            return;
          }
          send(projection.push(source), true);
          if (isOver()) end();
        });
      }
      options.signal?.addEventListener("abort", end, { once: true });
      try {
        // The replay's events go out as they come, marked once at its end; a run's replay is what its client holds.
        await options.replay((source) => {
          const events = projection.push(source);
          if (!run) send(events, false);
        }, projection);
      } catch (error) {
        closed = true;
        stop?.();
        controller.error(error);
        return;
      }
      replaying = false;
      for (const source of held.splice(0)) {
        const events = projection.push(source);
        if (!run) send(events, false);
      }
      if (run) {
        // A run left open by the replay is closed for the stream's state only: the client never saw it open here.
        const opening = projection.begin(run.runId);
        send(opening.slice(opening.findIndex((event) => event.type === EventType.RUN_STARTED)), true);
        await run.start?.();
        // Nothing goes on (no turn, no live run): the run ends now.
        if (!closed && projection.turnId === null && !projection.hasLiveRuns) send(projection.close(), true);
        if (isOver()) end();
        return;
      }
      send([], true);
      if (!options.follow) {
        send(projection.close(), true);
        end();
        return;
      }
      const keepAlive = options.keepAlive;
      if (!keepAlive) return;
      const { clock, heartbeatMs, maxDurationMs } = keepAlive;
      const endsAt = maxDurationMs === undefined ? Number.POSITIVE_INFINITY : clock.now() + maxDurationMs;
      const next = () => {
        if (closed) return;
        beat = clock.setTimeout(
          () => {
            if (clock.now() >= endsAt) return end();
            try {
              controller.enqueue(bytes.encode(":\n\n"));
            } catch {
              return end();
            }
            next();
          },
          Math.max(0, Math.min(heartbeatMs, endsAt - clock.now())),
        );
      };
      next();
    },
    cancel() {
      closed = true;
      stopBeating();
      stop?.();
    },
  });
}

/** An SSE `Response` of `agUiEventStream(options)`. */
export function agUiResponse(options: AgUiStreamOptions): Response {
  return new Response(agUiEventStream(options), {
    headers: { "Content-Type": AG_UI_SSE_CONTENT_TYPE, "Cache-Control": "no-cache", "X-Accel-Buffering": "no" },
  });
}

/** A stream's name: 16 random base-36 characters. */
function newStreamName(): string {
  const values = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(values, (value) => (value % 36).toString(36)).join("");
}
