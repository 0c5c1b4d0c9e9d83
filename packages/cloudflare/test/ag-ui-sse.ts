// Checking a parent's AG-UI stream (GET/POST …/ag-ui) in the workerd tests: a recorded text through @ag-ui/client's own
// SSE parsing and verification and @ag-ui/core's schemas (the recording itself: @agent-tools/workerd-harness/sse-client).
import { transformHttpEventStream, verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { SseRecording as Recording } from "@agent-tools/workerd-harness/sse-client";
import { from, lastValueFrom, toArray } from "rxjs";
import { expect } from "vitest";

/** An SSE recording whose events are AG-UI events. */
export const SseRecording = {
  open: (...args: Parameters<typeof Recording.open>) => Recording.open<BaseEvent>(...args),
  read: (...args: Parameters<typeof Recording.read>) => Recording.read<BaseEvent>(...args),
};

/**
 * A recorded SSE text through @ag-ui/client's own SSE parsing and event verification (`verifyEvents`), and every event
 * through @ag-ui/core's schemas; resolves the events.
 */
export async function verifyRecorded(sse: string): Promise<BaseEvent[]> {
  const bytes = new TextEncoder().encode(sse);
  const parsed = await lastValueFrom(
    // Emitted asynchronously, as a response body is (the client's parser drops what a synchronous source emits).
    transformHttpEventStream(
      from(
        (async function* () {
          yield { type: "headers", status: 200, headers: new Headers({ "content-type": "text/event-stream" }) };
          yield { type: "data", data: bytes };
        })() as never,
      ),
    ).pipe(verifyEvents(false), toArray()),
  );
  for (const event of parsed) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return parsed;
}

/** Every event of a recording, verified (see `verifyRecorded`). */
export const verified = (recording: { delivered: string[] }) => verifyRecorded(recording.delivered.join(""));

export const ofType = <T extends BaseEvent = BaseEvent & Record<string, unknown>>(events: BaseEvent[], type: string) =>
  events.filter((event) => event.type === type) as T[];
