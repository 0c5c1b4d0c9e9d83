// @vitest-environment happy-dom

import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolEventFrame,
  type AgentToolRunState,
  encodeAgentToolCursors,
} from "@agent-tools/client";
import { textPartChunks as textChunks } from "@agent-tools/core-runs/testing";
import { act, cleanup, render, renderHook, screen } from "@testing-library/react";
import type { UIMessageChunk } from "ai";
import { StrictMode } from "react";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import type { AgentToolEventSource } from "./agent-tool-event-source.js";
import { type UseAgentToolEventsResult, useAgentToolEvents } from "./use-agent-tool-events.js";

afterEach(cleanup);

/** A stand-in for an open WebSocket or PartySocket: an EventTarget that counts its `message` listeners. */
class FakeSocket extends EventTarget {
  listeners = 0;
  constructor(readonly url = "ws://parent") {
    super();
  }
  override addEventListener(...args: Parameters<EventTarget["addEventListener"]>): void {
    if (args[0] === "message") this.listeners += 1;
    super.addEventListener(...args);
  }
  override removeEventListener(...args: Parameters<EventTarget["removeEventListener"]>): void {
    if (args[0] === "message") this.listeners -= 1;
    super.removeEventListener(...args);
  }
  /** The server sends one message (frames as JSON text, as on the wire). */
  receive(message: AgentToolEventFrame | string): void {
    const data = typeof message === "string" ? message : JSON.stringify(message);
    act(() => {
      this.dispatchEvent(new MessageEvent("message", { data }));
    });
  }
}

const TYPE = "agent-tool-event" as const;
const started = (
  runId: string,
  parentToolCallId?: string,
  displayOrder = 0,
  agentType = "Researcher",
): AgentToolEventFrame => ({
  type: TYPE,
  ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
  revision: 1,
  event: { kind: "started", runId, agentType, displayOrder },
});
const chunk = (runId: string, sequence: number, body: UIMessageChunk, replay = false): AgentToolEventFrame => ({
  type: TYPE,
  sequence,
  ...(replay ? { replay: true as const } : {}),
  event: { kind: "chunk", runId, body },
});
const finished = (runId: string, revision = 2): AgentToolEventFrame => ({
  type: TYPE,
  revision,
  event: { kind: "finished", runId, summary: "done" },
});
const textFrames = (runId: string, text: string, replay = false) =>
  textChunks(`t-${runId}`, text).map((body, index) => chunk(runId, index + 1, body, replay));

const textOf = (run: AgentToolRunState | undefined) =>
  (run?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

/** A tool call's child runs, as a page would render them. */
function ToolCallRuns({ agent, toolCallId }: { agent: AgentToolEventSource | null; toolCallId: string }) {
  const { getRunsForToolCall, unboundRuns } = useAgentToolEvents({ agent });
  return (
    <div>
      <ol aria-label="runs">
        {getRunsForToolCall(toolCallId).map((run) => (
          <li key={run.runId} data-testid={run.runId}>
            {run.agentType}: {textOf(run)} [{run.status}]
          </li>
        ))}
      </ol>
      <p data-testid="tray">{unboundRuns.map((run) => run.runId).join(",")}</p>
    </div>
  );
}

describe("useAgentToolEvents({ agent }): a socket the app manages", () => {
  it("streams a tool call's child runs in display order", () => {
    const socket = new FakeSocket();
    render(<ToolCallRuns agent={socket} toolCallId="c1" />);
    socket.receive(started("second", "c1", 1, "Summarizer"));
    socket.receive(started("first", "c1", 0));
    socket.receive(started("detached"));
    for (const frame of textFrames("first", "Cats sleep a lot.")) socket.receive(frame);
    socket.receive(finished("first"));
    const items = screen.getAllByRole("listitem").map((item) => item.textContent);
    expect(items).toEqual(["Researcher: Cats sleep a lot. [completed]", "Summarizer:  [running]"]);
    expect(screen.getByTestId("tray").textContent).toBe("detached");
  });

  it("reads a batch (a socket whose URL asks with agentToolBatch=1): its frames in order, one render", () => {
    const socket = new FakeSocket("ws://parent?agentToolBatch=1");
    let renders = 0;
    const { result } = renderHook(() => {
      renders += 1;
      return useAgentToolEvents({ agent: socket });
    });
    const before = renders;
    const frames = [started("r1", "c1"), ...textFrames("r1", "Cats sleep a lot."), finished("r1")];
    socket.receive(JSON.stringify(frames));
    expect(textOf(result.current.runsById["r1"])).toBe("Cats sleep a lot.");
    expect(result.current.runsById["r1"]?.status).toBe("completed");
    expect(renders - before).toBe(1);
  });

  it("does not double text under StrictMode (double subscribe and unsubscribe)", () => {
    const socket = new FakeSocket();
    render(
      <StrictMode>
        <ToolCallRuns agent={socket} toolCallId="c1" />
      </StrictMode>,
    );
    expect(socket.listeners).toBe(1);
    socket.receive(started("r1", "c1"));
    for (const frame of textFrames("r1", "Exactly once, please.")) socket.receive(frame);
    expect(screen.getByTestId("r1").textContent).toBe("Researcher: Exactly once, please. [running]");
  });

  it("dedupes a replay/live race, in both orders", () => {
    const frames = textFrames("r1", "One two three four five.");
    const live = frames.slice(2);
    const replay = textFrames("r1", "One two three four five.", true);

    // Live frames first (the socket was attached mid-run), then the replay of everything.
    const liveFirst = new FakeSocket();
    const a = renderHook(() => useAgentToolEvents({ agent: liveFirst }), {
      wrapper: StrictMode,
    });
    for (const frame of [started("r1", "c1"), ...live, ...replay]) liveFirst.receive(frame);
    expect(textOf(a.result.current.runsById["r1"])).toBe("One two three four five.");

    // The replay first, then the same chunks again as live frames.
    const replayFirst = new FakeSocket();
    const b = renderHook(() => useAgentToolEvents({ agent: replayFirst }), { wrapper: StrictMode });
    for (const frame of [started("r1", "c1"), ...replay.slice(0, 4), ...live, ...replay]) replayFirst.receive(frame);
    expect(textOf(b.result.current.runsById["r1"])).toBe("One two three four five.");
    expect(b.result.current.runsById["r1"]?.parts).toEqual(a.result.current.runsById["r1"]?.parts);
  });

  it("exposes cursors for the URL builder, so that a reconnect asks only for what is newer", () => {
    // The app's URL builder (e.g. PartySocket's `query` function) reads the hook's cursors on every reconnect.
    let cursors: UseAgentToolEventsResult["cursors"] = () => ({});
    const connect = () =>
      new FakeSocket(
        `ws://parent?${AGENT_TOOL_CURSORS_PARAM}=${encodeURIComponent(encodeAgentToolCursors(cursors()))}`,
      );
    const first = connect();
    const { result, rerender } = renderHook(({ agent }) => useAgentToolEvents({ agent }), {
      initialProps: { agent: first },
    });
    cursors = result.current.cursors;
    expect(first.url).toBe(`ws://parent?${AGENT_TOOL_CURSORS_PARAM}=${encodeURIComponent("[]")}`);
    const frames = textFrames("r1", "Before the drop. After the drop.");
    socketReceiveAll(first, [started("r1", "c1"), ...frames.slice(0, 4)]);

    // The connection drops and comes back: the new URL carries what the client holds.
    const second = connect();
    expect(JSON.parse(new URL(second.url).searchParams.get(AGENT_TOOL_CURSORS_PARAM) ?? "")).toEqual([["r1", 4, 1]]);
    rerender({ agent: second });
    expect(first.listeners).toBe(0);
    expect(second.listeners).toBe(1);
    // The server sends only what is newer; the state carried over.
    socketReceiveAll(second, [...frames.slice(4), finished("r1")]);
    expect(textOf(result.current.runsById["r1"])).toBe("Before the drop. After the drop.");
    expect(result.current.cursors()).toEqual({ r1: { sequence: frames.length, revision: 2 } });
  });

  it("forgets everything on resetLocalState, then rebuilds from a full replay", () => {
    const socket = new FakeSocket();
    const { result } = renderHook(() => useAgentToolEvents({ agent: socket }), { wrapper: StrictMode });
    socketReceiveAll(socket, [started("r1", "c1"), ...textFrames("r1", "Some text.")]);
    expect(Object.keys(result.current.runsById)).toEqual(["r1"]);
    act(() => result.current.resetLocalState());
    expect(result.current.runsById).toEqual({});
    expect(result.current.getRunsForToolCall("c1")).toEqual([]);
    expect(result.current.cursors()).toEqual({});
    socketReceiveAll(socket, [started("r1", "c1"), ...textFrames("r1", "Some text.", true), finished("r1")]);
    expect(textOf(result.current.runsById["r1"])).toBe("Some text.");
    expect(result.current.getRunsForToolCall("c1").map((run) => run.runId)).toEqual(["r1"]);
  });

  it("keeps its functions' identities, and a tool call's runs array while they do not change", () => {
    const socket = new FakeSocket();
    const { result, rerender } = renderHook(() => useAgentToolEvents({ agent: socket }));
    const first = result.current;
    socketReceiveAll(socket, [started("a", "c1"), started("b", "c2")]);
    const c1 = result.current.getRunsForToolCall("c1");
    socket.receive(chunk("b", 1, { type: "start-step" }));
    rerender();
    expect(result.current.getRunsForToolCall).toBe(first.getRunsForToolCall);
    expect(result.current.resetLocalState).toBe(first.resetLocalState);
    expect(result.current.cursors).toBe(first.cursors);
    expect(result.current.getRunsForToolCall("c1")).toBe(c1);
  });

  it("uses the caller's drill-in address", () => {
    const socket = new FakeSocket();
    const { result } = renderHook(() =>
      useAgentToolEvents({
        agent: socket,
        drillInUrl: (run) => `/agents/assistant/default/sub/${run.agentType}/${run.runId}`,
      }),
    );
    socket.receive(started("r1", "c1"));
    expect(result.current.runsById["r1"]?.drillInUrl).toBe("/agents/assistant/default/sub/Researcher/r1");
  });

  it("subscribes only while mounted, waits for a connection, and never opens or closes one", () => {
    const socket = new FakeSocket();
    const { result, rerender, unmount } = renderHook(
      ({ agent }: { agent: FakeSocket | null }) => useAgentToolEvents({ agent }),
      { initialProps: { agent: null as FakeSocket | null } },
    );
    socket.receive(started("ignored"));
    rerender({ agent: socket });
    expect(socket.listeners).toBe(1);
    socket.receive(started("r1"));
    expect(Object.keys(result.current.runsById)).toEqual(["r1"]);
    unmount();
    expect(socket.listeners).toBe(0);
    expect(() => socket.receive(started("r2"))).not.toThrow();
  });

  it("takes a browser WebSocket, a PartySocket-style socket, a Node `ws` socket or an EventTarget (types)", () => {
    type MessageLike = { data: string; type: string; target: unknown };
    type WsSocket = {
      addEventListener(type: "message", listener: (event: MessageLike) => void, options?: object): void;
      removeEventListener(type: "message", listener: (event: MessageLike) => void): void;
    };
    type PartySocketLike = {
      addEventListener<T extends keyof WebSocketEventMap>(
        type: T,
        listener: (event: WebSocketEventMap[T]) => void,
      ): void;
      removeEventListener<T extends keyof WebSocketEventMap>(
        type: T,
        listener: (event: WebSocketEventMap[T]) => void,
      ): void;
    };
    expectTypeOf<WebSocket>().toExtend<AgentToolEventSource>();
    expectTypeOf<EventTarget>().toExtend<AgentToolEventSource>();
    expectTypeOf<WsSocket>().toExtend<AgentToolEventSource>();
    expectTypeOf<PartySocketLike>().toExtend<AgentToolEventSource>();
  });

  it("ignores other traffic on the same connection", () => {
    const socket = new FakeSocket();
    const { result } = renderHook(() => useAgentToolEvents({ agent: socket }));
    const before = result.current;
    socket.receive('{"type":"cf_agent_use_chat_response","id":"x","body":"{\\"type\\":\\"text-delta\\"}"}');
    socket.receive("not json at all");
    expect(result.current).toBe(before);
  });
});

function socketReceiveAll(socket: FakeSocket, frames: readonly AgentToolEventFrame[]) {
  for (const frame of frames) socket.receive(frame);
}
