// @vitest-environment happy-dom
import {
  type AgentToolEventFrame,
  createAgentToolConnection,
  createAgentToolConnectionPool,
} from "@agent-tools/client";
import type { AgentToolConnectionPool, AgentToolDrillInFrame } from "@agent-tools/client/internal";
import { type FakeWebSocket, fakeWebSockets, ManualClock } from "@agent-tools/client/testing";
import { act, cleanup, render, renderHook, screen } from "@testing-library/react";
import type { UIMessage } from "ai";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { useAgentToolRun } from "./use-agent-tool-run.js";

afterEach(cleanup);

const PARENT = "wss://example.com/agents/assistant/default";
const RUN_URL = `${PARENT}/sub/Researcher/r1`;
const started: AgentToolEventFrame = {
  type: "agent-tool-event",
  parentToolCallId: "c1",
  revision: 1,
  event: { kind: "started", runId: "r1", agentType: "Researcher", displayOrder: 0, inputPreview: "cats" },
};
const input: UIMessage = { id: "in", role: "user", parts: [{ type: "text", text: "How long do cats sleep?" }] };
const childMessages: AgentToolDrillInFrame = {
  type: "child-messages",
  runId: "r1",
  messages: [input],
  run: { runId: "r1", status: "running", milestones: [], lastSequence: 0, startedAt: 1 },
};
const entry = (sequence: number, body: unknown): AgentToolDrillInFrame =>
  ({ type: "child-chunk", runId: "r1", item: { type: "entries", entries: [{ sequence, body, at: 1 }] } }) as never;

function setup() {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const pool = createAgentToolConnectionPool({
    WebSocket: sockets.WebSocket,
    clock,
    random: () => 0,
    graceMs: 100,
    drillInGraceMs: 100,
  });
  // A parent's socket asks for batches and paged replay (`?agentToolBatch=1&agentToolPage=50`); a drill-in's does not.
  const socketsTo = (url: string) =>
    sockets.sockets.filter((socket) => socket.url.replace(/\?agentToolBatch=1&agentToolPage=\d+$/, "") === url);
  const send = (socket: FakeWebSocket | undefined, ...frames: unknown[]) =>
    act(() => {
      socket?.open();
      for (const frame of frames) socket?.send(frame);
    });
  return { sockets, clock, pool, socketsTo, send, advance: (ms: number) => act(() => clock.advanceBy(ms)) };
}

function RunDetail({ pool, drillIn = true }: { pool: AgentToolConnectionPool; drillIn?: boolean }) {
  const { run, messages, drillIn: view } = useAgentToolRun("r1", { url: PARENT, pool, drillIn });
  return (
    <article data-status={run?.status ?? "unknown"} data-drill-in={view?.status ?? "none"}>
      {messages.map((message) => (
        <p key={message.id} data-role={message.role}>
          {message.parts.map((part) => (part.type === "text" ? part.text : "")).join("")}
        </p>
      ))}
    </article>
  );
}

describe("useAgentToolRun", () => {
  it("gives the run's state and its child's messages, live, over one drill-in socket", () => {
    const { pool, socketsTo, send } = setup();
    render(<RunDetail pool={pool} />);
    const [parent] = socketsTo(PARENT);
    send(parent, started);
    const [drillIn] = socketsTo(RUN_URL);
    expect(drillIn).toBeDefined();
    send(
      drillIn,
      childMessages,
      entry(1, { type: "text-start", id: "t" }),
      entry(2, { type: "text-delta", id: "t", delta: "Cats sleep." }),
    );
    const article = screen.getByRole("article");
    expect(article.dataset["status"]).toBe("running");
    expect(article.dataset["drillIn"]).toBe("open");
    expect(screen.getAllByText(/./).map((item) => [item.dataset["role"], item.textContent])).toEqual([
      ["user", "How long do cats sleep?"],
      ["assistant", "Cats sleep."],
    ]);
  });

  it("shares the drill-in socket among components and StrictMode remounts, and closes it once none is left", async () => {
    const { pool, socketsTo, send, advance } = setup();
    const { unmount } = render(
      <StrictMode>
        <RunDetail pool={pool} />
        <RunDetail pool={pool} />
      </StrictMode>,
    );
    send(socketsTo(PARENT)[0], started);
    await advance(1_000);
    expect(socketsTo(PARENT)).toHaveLength(1);
    expect(socketsTo(RUN_URL)).toHaveLength(1);
    send(socketsTo(RUN_URL)[0], childMessages, entry(1, { type: "text-start", id: "t" }));
    send(socketsTo(RUN_URL)[0], entry(2, { type: "text-delta", id: "t", delta: "Once." }));
    expect(screen.getAllByText("Once.")).toHaveLength(2);
    unmount();
    await advance(100);
    expect(socketsTo(RUN_URL)[0]?.closedByClient).toBe(true);
    expect(socketsTo(PARENT)[0]?.closedByClient).toBe(true);
  });

  it("opens no drill-in socket with drillIn: false, and closes it when a component turns it off", async () => {
    const { pool, socketsTo, send, advance } = setup();
    const { rerender } = render(<RunDetail pool={pool} drillIn={false} />);
    send(socketsTo(PARENT)[0], started);
    expect(screen.getByRole("article").dataset["status"]).toBe("running");
    expect(socketsTo(RUN_URL)).toHaveLength(0);
    rerender(<RunDetail pool={pool} />);
    expect(socketsTo(RUN_URL)).toHaveLength(1);
    rerender(<RunDetail pool={pool} drillIn={false} />);
    await advance(100);
    expect(socketsTo(RUN_URL)[0]?.closedByClient).toBe(true);
    expect(screen.getByRole("article").dataset["drillIn"]).toBe("none");
  });

  it("works on a connection the app owns, and with no run yet", () => {
    const sockets = fakeWebSockets();
    const connection = createAgentToolConnection({ url: PARENT, WebSocket: sockets.WebSocket });
    const { result, rerender } = renderHook(({ runId }) => useAgentToolRun(runId, { connection }), {
      initialProps: { runId: null as string | null },
    });
    expect(result.current).toMatchObject({ run: undefined, messages: [], drillIn: null, pendingApprovals: [] });
    rerender({ runId: "r1" });
    act(() => {
      sockets.sockets[0]?.open();
      sockets.sockets[0]?.send(started);
    });
    expect(result.current.run?.agentType).toBe("Researcher");
    expect(sockets.sockets.map((socket) => socket.url)).toEqual([
      `${PARENT}?agentToolBatch=1&agentToolPage=50`,
      RUN_URL,
    ]);
    connection.close();
  });
});
