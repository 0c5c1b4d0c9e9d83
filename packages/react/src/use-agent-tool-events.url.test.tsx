// @vitest-environment happy-dom
import {
  type AgentToolEventFrame,
  type AgentToolRunState,
  createAgentToolConnection,
  createAgentToolConnectionPool,
  selectRunsForToolCall,
} from "@agent-tools/client";
import { fakeWebSockets, ManualClock } from "@agent-tools/client/testing";
import { act, cleanup, render, renderHook, screen } from "@testing-library/react";
import type { UIMessageChunk } from "ai";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { useAgentToolEvents } from "./use-agent-tool-events.js";

afterEach(cleanup);

const PARENT = "wss://example.com/agents/assistant/default";
/** What a connection opens for `url`: it asks for batches and paged replay (the default page of 50). */
const opened = (url: string) => `${url}?agentToolBatch=1&agentToolPage=50`;
const TYPE = "agent-tool-event" as const;

const started = (runId: string, parentToolCallId: string, displayOrder = 0): AgentToolEventFrame => ({
  type: TYPE,
  parentToolCallId,
  revision: 1,
  event: { kind: "started", runId, agentType: "Researcher", displayOrder },
});
const textFrames = (runId: string, text: string, first = 1): AgentToolEventFrame[] => {
  const chunks: UIMessageChunk[] = [
    { type: "text-start", id: "t" },
    ...(text.match(/\S+\s*/g) ?? []).map((delta): UIMessageChunk => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
  ];
  return chunks.map((body, index) => ({ type: TYPE, sequence: first + index, event: { kind: "chunk", runId, body } }));
};
const textOf = (run: AgentToolRunState | undefined) =>
  (run?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

/** A pool on fake sockets and a manual clock (grace 100 ms, back-off 500 ms). */
function setup() {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const pool = createAgentToolConnectionPool({ WebSocket: sockets.WebSocket, clock, random: () => 0, graceMs: 100 });
  /** The server side of the newest socket, inside act() since it updates components. */
  const server = {
    open: () => act(() => sockets.last().open()),
    send: (...frames: AgentToolEventFrame[]) =>
      act(() => {
        for (const frame of frames) sockets.last().send(frame);
      }),
    drop: () => act(() => sockets.last().drop()),
  };
  const advance = (ms: number) => act(() => clock.advanceBy(ms));
  return { sockets, clock, pool, server, advance };
}

function RunList({
  url,
  pool,
  toolCallId,
}: {
  url: string | null;
  pool: ReturnType<typeof setup>["pool"];
  toolCallId: string;
}) {
  const { getRunsForToolCall, connectionStatus } = useAgentToolEvents({ url, pool });
  return (
    <section aria-label={toolCallId} data-status={connectionStatus ?? "none"}>
      {getRunsForToolCall(toolCallId).map((run) => (
        <p key={run.runId} data-testid={run.runId}>
          {textOf(run)}
        </p>
      ))}
    </section>
  );
}

type Pool = ReturnType<typeof setup>["pool"];

/** The runs of tool call c1, counting its renders. */
function ToolCallStatuses({ pool, renders }: { pool: Pool; renders: { count: number } }) {
  renders.count += 1;
  const runs = useAgentToolEvents({ url: PARENT, pool }, (state) => selectRunsForToolCall(state, "c1"));
  return <p data-testid="count">{runs.map((run) => `${run.runId}:${run.status}`).join(",")}</p>;
}

const sameIds = (left: string[], right: string[]) => left.join() === right.join();

/** The runIds, a new array on every state (equal ones compared by `sameIds`), counting its renders. */
function RunIds({ pool, renders }: { pool: Pool; renders: { count: number } }) {
  renders.count += 1;
  const ids = useAgentToolEvents({ url: PARENT, pool }, (state) => Object.keys(state.runsById), sameIds);
  return <p data-testid="ids">{ids.join(",")}</p>;
}

describe("useAgentToolEvents({ url })", () => {
  it("opens one socket for every component on one URL, and closes it after the last unmounts", async () => {
    const { sockets, pool, server, advance } = setup();
    const { unmount } = render(
      <>
        <RunList url={PARENT} pool={pool} toolCallId="c1" />
        <RunList url={PARENT} pool={pool} toolCallId="c2" />
        <RunList url={PARENT} pool={pool} toolCallId="c1" />
      </>,
    );
    expect(sockets.sockets.map((socket) => socket.url)).toEqual([opened(PARENT)]);
    server.open();
    server.send(started("a", "c1"), started("b", "c2"), ...textFrames("a", "Shared by all."));
    expect(screen.getAllByTestId("a").map((item) => item.textContent)).toEqual(["Shared by all.", "Shared by all."]);
    expect(screen.getByLabelText("c2").dataset["status"]).toBe("open");
    unmount();
    await advance(99);
    expect(sockets.last().closedByClient).toBe(false);
    await advance(1);
    expect(sockets.last().closedByClient).toBe(true);
    expect(sockets.sockets).toHaveLength(1);
  });

  it("is StrictMode-safe: one socket through mount → unmount → mount, and no doubled text", async () => {
    const { sockets, pool, server, advance } = setup();
    render(
      <StrictMode>
        <RunList url={PARENT} pool={pool} toolCallId="c1" />
      </StrictMode>,
    );
    await advance(1_000);
    expect(sockets.sockets).toHaveLength(1);
    expect(sockets.last().closedByClient).toBe(false);
    server.open();
    server.send(started("a", "c1"), ...textFrames("a", "Exactly once, please."));
    expect(screen.getByTestId("a").textContent).toBe("Exactly once, please.");
  });

  it("reconnects after a drop with the cursors it holds, and shows the status meanwhile", async () => {
    const { sockets, pool, server, advance } = setup();
    render(<RunList url={PARENT} pool={pool} toolCallId="c1" />);
    expect(screen.getByLabelText("c1").dataset["status"]).toBe("connecting");
    server.open();
    const frames = textFrames("a", "Before the drop. After the drop.");
    server.send(started("a", "c1"), ...frames.slice(0, 4));
    server.drop();
    expect(screen.getByLabelText("c1").dataset["status"]).toBe("reconnecting");
    await advance(500);
    expect(new URL(sockets.last().url).searchParams.get("agentToolCursors")).toBe('[["a",4,1]]');
    server.open();
    server.send(...frames.slice(4));
    expect(screen.getByTestId("a").textContent).toBe("Before the drop. After the drop.");
  });

  it("opens nothing while the URL is null, and follows a URL change", async () => {
    const { sockets, pool, advance } = setup();
    const { rerender } = render(<RunList url={null} pool={pool} toolCallId="c1" />);
    expect(sockets.sockets).toHaveLength(0);
    expect(screen.getByLabelText("c1").dataset["status"]).toBe("none");
    rerender(<RunList url={PARENT} pool={pool} toolCallId="c1" />);
    rerender(<RunList url={`${PARENT}-2`} pool={pool} toolCallId="c1" />);
    await advance(100);
    expect(sockets.sockets.map((socket) => [socket.url, socket.closedByClient])).toEqual([
      [opened(PARENT), true],
      [opened(`${PARENT}-2`), false],
    ]);
  });

  it("resetLocalState forgets the runs and reconnects for a full replay", () => {
    const { sockets, pool, server } = setup();
    const { result } = renderHook(() => useAgentToolEvents({ url: PARENT, pool }));
    server.open();
    server.send(started("a", "c1"), ...textFrames("a", "Some text."));
    expect(result.current.cursors()).toEqual({ a: { sequence: 4, revision: 1 } });
    act(() => result.current.resetLocalState());
    expect(result.current.runsById).toEqual({});
    expect(sockets.last().url).toBe(opened(PARENT));
    expect(result.current.connection).toBe(pool.peek(PARENT));
  });
});

describe("useAgentToolEvents({ connection })", () => {
  it("reads a connection the app owns, and leaves it open on unmount", () => {
    const sockets = fakeWebSockets();
    const connection = createAgentToolConnection({ url: PARENT, WebSocket: sockets.WebSocket });
    const { result, unmount } = renderHook(() => useAgentToolEvents({ connection }), { wrapper: StrictMode });
    act(() => {
      sockets.last().open();
      sockets.last().send(started("a", "c1"));
    });
    expect(result.current.connectionStatus).toBe("open");
    expect(result.current.getRunsForToolCall("c1").map((run) => run.runId)).toEqual(["a"]);
    expect(result.current.connection).toBe(connection);
    unmount();
    expect(sockets.last().closedByClient).toBe(false);
    expect(sockets.sockets).toHaveLength(1);
    connection.close();
  });
});

describe("useAgentToolEvents(options, selector)", () => {
  it("re-renders only when the selected value changes", () => {
    const { pool, server } = setup();
    const renders = { count: 0 };
    render(<ToolCallStatuses pool={pool} renders={renders} />);
    server.open();
    server.send(started("a", "c1"));
    const afterStart = renders.count;
    server.send(started("b", "c2"), ...textFrames("b", "Another tool call's run streams."));
    expect(renders.count).toBe(afterStart);
    server.send({ type: TYPE, revision: 2, event: { kind: "finished", runId: "a", summary: "done" } });
    expect(renders.count).toBe(afterStart + 1);
    expect(screen.getByTestId("count").textContent).toBe("a:completed");
  });

  it("takes an equality for derived values", () => {
    const { pool, server } = setup();
    const renders = { count: 0 };
    render(<RunIds pool={pool} renders={renders} />);
    server.open();
    server.send(started("a", "c1"));
    const afterStart = renders.count;
    server.send(...textFrames("a", "Text does not change the ids."));
    expect(renders.count).toBe(afterStart);
    expect(screen.getByTestId("ids").textContent).toBe("a");
  });
});
