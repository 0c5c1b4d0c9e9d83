import type { BaseEvent } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import { decodeAgUiCursor, encodeAgUiCursor } from "./cursor.js";
import { AgUiProjection, type AgUiSource } from "./projection.js";

/** The SSE content type of an AG-UI stream. */
export const AG_UI_SSE_CONTENT_TYPE = "text/event-stream";

export type AgUiStreamOptions = {
  /** The AG-UI thread (the parent's conversation). */
  threadId: string;
  /**
   * Where the client stopped: the last event id it received (`Last-Event-ID`, or a `cursor` query parameter). A
   * stream resumed from it sends only what comes after, and never a second start of what it already started.
   */
  cursor?: string | null;
  /**
   * Send what the client misses, as frames (`push` each one): given what it holds of each run (the cursors of the
   * event socket's replay, empty for a new stream), e.g. `registry.replayAgentToolRuns(push, { cursors })` and the
   * conversation's turn in flight.
   */
  replay(push: (source: AgUiSource) => void, cursors: Record<string, { sequence: number; revision: number }>): unknown;
  /** Follow live frames after the replay (returns how to stop following); none: the stream ends after the replay. */
  follow?: (push: (source: AgUiSource) => void) => () => void;
  /** Stops the stream (e.g. the request's signal). */
  signal?: AbortSignal;
};

/**
 * An AG-UI event stream as Server-Sent Events (`data:` lines encoded by `@ag-ui/encoder`), projected from a parent's
 * frames by an `AgUiProjection`: the replay first, then live frames (those that came during the replay are held and
 * projected after it; the projection drops what it has already sent). Every batch of events ends with an `id:`, the
 * projection's state after it (`encodeAgUiCursor`), so a client that reconnects with it goes on without a gap and
 * without a repeated start. A stream that is not followed ends with the replay, its AG-UI run closed.
 */
export function agUiEventStream(options: AgUiStreamOptions): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder();
  const encoder = new EventEncoder();
  const restored = decodeAgUiCursor(options.cursor);
  const projection = new AgUiProjection({
    threadId: options.threadId,
    ...(restored && restored.threadId === options.threadId ? { state: restored } : {}),
  });
  let stop: (() => void) | undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (events: BaseEvent[]) => {
        if (closed || events.length === 0) return;
        const id = encodeAgUiCursor(projection.state());
        const text = events.map((event, index) => {
          const data = encoder.encodeSSE(event);
          return index === events.length - 1 ? `id: ${id}\n${data}` : data;
        });
        try {
          controller.enqueue(bytes.encode(text.join("")));
        } catch {
          // the client went away: stop following
          end();
        }
      };
      const end = () => {
        if (closed) return;
        closed = true;
        stop?.();
        try {
          controller.close();
        } catch {
          // already closed or cancelled
        }
      };
      const held: AgUiSource[] = [];
      let replaying = true;
      if (options.follow) {
        stop = options.follow((source) => {
          if (replaying) held.push(source);
          else write(projection.push(source));
        });
      }
      options.signal?.addEventListener("abort", end, { once: true });
      try {
        await options.replay((source) => write(projection.push(source)), projection.cursors());
      } catch (error) {
        closed = true;
        stop?.();
        controller.error(error);
        return;
      }
      replaying = false;
      for (const source of held.splice(0)) write(projection.push(source));
      if (!options.follow) {
        write(projection.close());
        end();
      }
    },
    cancel() {
      closed = true;
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
