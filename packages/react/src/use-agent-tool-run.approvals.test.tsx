// @vitest-environment happy-dom
import { type AgentToolApproval, type AgentToolEventFrame, createAgentToolConnectionPool } from "@agent-tools/client";
import type { AgentToolConnectionPool } from "@agent-tools/client/internal";
import { fakeWebSockets, ManualClock } from "@agent-tools/client/testing";
import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { useAgentToolEvents } from "./use-agent-tool-events.js";
import { useAgentToolRun } from "./use-agent-tool-run.js";

afterEach(cleanup);

const PARENT = "wss://example.com/agents/assistant/default";
const RUN = "agent-tool:c1";
const started: AgentToolEventFrame = {
  type: "agent-tool-event",
  parentToolCallId: "c1",
  revision: 1,
  event: { kind: "started", runId: RUN, agentType: "Planner", displayOrder: 0 },
};
const write: AgentToolApproval = {
  approvalId: "ap-1",
  toolCallId: "call-9",
  toolName: "write",
  input: { path: "notes.md" },
  path: [{ agentType: "Writer", runId: "agent-tool:w1" }],
  status: "pending",
  at: 1_000,
};
const approvalFrame = (sequence: number, approval: AgentToolApproval): AgentToolEventFrame => ({
  type: "agent-tool-event",
  sequence,
  // The chunk a run's log records an approval's state in (`data-agent-approval`, its id the approval's).
  event: { kind: "chunk", runId: RUN, body: { type: "data-agent-approval", id: approval.approvalId, data: approval } },
});

function setup() {
  const sockets = fakeWebSockets();
  const pool = createAgentToolConnectionPool({
    WebSocket: sockets.WebSocket,
    clock: new ManualClock(0),
    random: () => 0,
  });
  const requests: Array<{ url: string; body: unknown }> = [];
  const fetch = async (url: string, init: RequestInit) => {
    requests.push({ url, body: JSON.parse(String(init.body)) });
    return new Response(JSON.stringify({ answered: true }), { status: 200 });
  };
  // The client asks for paged replay (`?agentToolPage=`): the parent socket is the one at its address.
  const parent = () => sockets.sockets.find((socket) => socket.url.split("?")[0] === PARENT);
  let isOpen = false;
  const receive = (...frames: AgentToolEventFrame[]) =>
    act(() => {
      const socket = parent();
      if (!isOpen) socket?.open();
      isOpen = true;
      for (const frame of frames) socket?.send(frame);
    });
  return { pool, fetch, requests, receive };
}

/** A run's pending approvals, each with Approve and Deny, as a page would show them. */
function Approvals({
  pool,
  fetch,
}: {
  pool: AgentToolConnectionPool;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
}) {
  const { run, pendingApprovals, answerApproval } = useAgentToolRun(RUN, { url: PARENT, pool, drillIn: false, fetch });
  const [said, setSaid] = useState("");
  return (
    <section aria-label="approvals">
      <p>{run?.approvals.map((approval) => `${approval.toolName}:${approval.status}`).join(" ")}</p>
      {pendingApprovals.map((approval) => (
        <fieldset
          key={approval.approvalId}
          aria-label={`${approval.toolName} asked by ${approval.path.map((node) => node.agentType).join(" › ")}`}
        >
          <button
            type="button"
            onClick={() =>
              void answerApproval(approval.approvalId, { approved: true }).then((answered) =>
                setSaid(`answered: ${answered}`),
              )
            }
          >
            Approve
          </button>
          <button
            type="button"
            onClick={() => void answerApproval(approval.approvalId, { approved: false, reason: "no" })}
          >
            Deny
          </button>
        </fieldset>
      ))}
      <output>{said}</output>
    </section>
  );
}

describe("approvals in the React hooks", () => {
  it("useAgentToolRun lists the run's pending approvals and answers one at the parent's approve route", async () => {
    const { pool, fetch, requests, receive } = setup();
    render(<Approvals pool={pool} fetch={fetch} />);
    receive(started, approvalFrame(1, write));
    const group = screen.getByRole("group", { name: "write asked by Writer" });
    expect(screen.getByText("write:pending")).toBeDefined();

    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    });
    expect(requests).toEqual([
      { url: "https://example.com/agents/assistant/default/approve/agent-tool%3Ac1/ap-1", body: { approved: true } },
    ]);
    expect(screen.getByRole("status").textContent).toBe("answered: true");
    // The answer comes back as the run's next chunk (to every tab): the approval is no longer pending.
    expect(group.isConnected).toBe(true);
    receive(approvalFrame(2, { ...write, status: "approved", at: 2_000 }));
    expect(screen.queryByRole("group")).toBeNull();
    expect(screen.getByText("write:approved")).toBeDefined();
  });

  it("useAgentToolEvents answers any run's approval; with no parent URL the answer rejects, saying why", async () => {
    const { pool, fetch, requests } = setup();
    const { result } = renderHook(() => useAgentToolEvents({ url: PARENT, pool, fetch }));
    await expect(result.current.answerApproval(RUN, "ap-1", { approved: false, reason: "no" })).resolves.toBe(true);
    expect(requests[0]?.body).toEqual({ approved: false, reason: "no" });

    const none = renderHook(() => useAgentToolEvents({ connection: null }));
    await expect(none.result.current.answerApproval(RUN, "ap-1", { approved: true })).rejects.toThrow(
      /no parent URL to answer at/,
    );
  });
});
