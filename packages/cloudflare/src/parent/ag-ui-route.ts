import { type AgUiSource, agUiResponse } from "@agent-tools/ag-ui";
import { AGENT_CHAT_EVENT_TYPE, type AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { turnRootId } from "./parent-parts.js";
import type { ParentRouteParts } from "./parent-route-table.js";
import { PARENT_PATH_SEGMENTS } from "./parent-routes.js";

/** The header (and query parameter) a resumed AG-UI stream names its last event with. */
const LAST_EVENT_ID = "Last-Event-ID";

/**
 * `GET …/ag-ui` (or `POST`, whose body is not read): the parent's conversation and runs as an AG-UI event stream
 * (`@agent-tools/ag-ui`), from where the client stopped (`Last-Event-ID`, or `?cursor=`), then live until the client
 * goes (`?follow=false`: only what is there now). The thread is the parent's name. A turn in flight is an AG-UI run
 * the runs it dispatched belong to: the other runs are sent before it starts.
 * @internal
 */
export function serveAgUi(request: Request, parts: ParentRouteParts): Response {
  const url = new URL(request.url);
  const name = url.pathname.split("/").filter((segment) => segment !== "")[PARENT_PATH_SEGMENTS - 1] ?? "";
  const { registry, chat, events } = parts;
  const follow = url.searchParams.get("follow") !== "false";
  return agUiResponse({
    threadId: decodeURIComponent(name),
    cursor: request.headers.get(LAST_EVENT_ID) ?? url.searchParams.get("cursor"),
    signal: request.signal,
    ...(follow ? { follow: (push: (source: AgUiSource) => void) => events.listen(push) } : {}),
    async replay(push, cursors) {
      const frames: AgentToolEventFrame[] = [];
      await registry.replayAgentToolRuns((frame) => frames.push(frame), {
        cursors: Object.keys(cursors).length > 0 ? cursors : null,
      });
      const turnId = chat.engine.activeTurnId;
      if (turnId === null) {
        for (const frame of frames) push(frame);
        return;
      }
      // The turn's own runs after its start, the others before it.
      const rows = await registry.extension({ key: "agent-tools/ag-ui", read: () => null }).listRuns();
      const ofTurn = new Set(rows.filter((row) => row.tree?.rootId === turnRootId(turnId)).map((row) => row.runId));
      const inTurn = (frame: AgentToolEventFrame) => frame.event.kind !== "cleared" && ofTurn.has(frame.event.runId);
      for (const frame of frames) if (!inTurn(frame)) push(frame);
      push({
        type: AGENT_CHAT_EVENT_TYPE,
        event: { kind: "turn-started", turnId, origin: "client", resumed: false },
      });
      for (const frame of frames) if (inTurn(frame)) push(frame);
    },
  });
}
