// Paged replay on AgentToolParent's event socket (SPEC §6), in workerd: a client that asks with `agentToolPage` gets
// the newest runs and a page frame, asks for older pages on the same socket, and after a reconnect with its cursors
// gets only what it missed; a client that does not ask gets every run, as before.
import {
  AGENT_TOOL_CURSORS_PARAM,
  AGENT_TOOL_PAGE_PARAM,
  AGENT_TOOL_PAGE_REQUEST_TYPE,
  type AgentToolEventFrame,
  type AgentToolPageFrame,
  encodeAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-paged-replay-");

const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");
const pageFrames = (messages: unknown[]) =>
  (messages as AgentToolPageFrame[]).filter((message) => message.type === "agent-tool-page");
/** The runs that frames name, in the order they first appear. */
const runsOf = (messages: unknown[]) => [
  ...new Set(agentFrames(messages).flatMap((frame) => (frame.event.kind === "cleared" ? [] : [frame.event.runId]))),
];

describe("paged replay", () => {
  it("sends a paging client the newest runs, then older pages on request; a reconnect gets only what it missed", async () => {
    const host = await start();
    const base = "/agents/parent/pages";
    const watcher = await RecordingSocket.open(wsUrl(host, base));
    for (const runId of ["r1", "r2", "r3", "r4", "r5"]) {
      await host.fetchJson(`${base}/test/start?runId=${runId}&text=${runId}`, { method: "POST" });
      await watcher.waitFor((messages) =>
        agentFrames(messages).some((frame) => frame.event.kind === "finished" && frame.event.runId === runId),
      );
    }
    watcher.close();

    const client = await RecordingSocket.open(wsUrl(host, `${base}?${AGENT_TOOL_PAGE_PARAM}=2`));
    await client.waitFor((messages) => pageFrames(messages).length === 1);
    expect(runsOf(client.messages)).toEqual(["r5", "r4"]);
    const [first] = pageFrames(client.messages);
    expect(first).toMatchObject({ type: "agent-tool-page", runs: 2, hasOlder: true });

    client.send({ type: AGENT_TOOL_PAGE_REQUEST_TYPE, before: first?.before, limit: 2 });
    await client.waitFor((messages) => pageFrames(messages).length === 2);
    const second = pageFrames(client.messages)[1];
    expect(second).toMatchObject({ runs: 2, hasOlder: true });
    client.send({ type: AGENT_TOOL_PAGE_REQUEST_TYPE, before: second?.before, limit: 2 });
    await client.waitFor((messages) => pageFrames(messages).length === 3);
    expect(pageFrames(client.messages)[2]).toEqual({ type: "agent-tool-page", runs: 1, hasOlder: false });
    expect(runsOf(client.messages)).toEqual(["r5", "r4", "r3", "r2", "r1"]);
    // A message that is not a page request changes nothing.
    client.sendRaw("not json");
    client.close();

    // The client held r4 and r5 whole; a new run finished while it was away.
    const cursors: Record<string, { sequence: number; revision: number }> = {};
    for (const frame of agentFrames(client.messages)) {
      if (frame.event.kind === "cleared" || !["r4", "r5"].includes(frame.event.runId)) continue;
      const cursor = cursors[frame.event.runId] ?? { sequence: 0, revision: 0 };
      cursors[frame.event.runId] = {
        sequence: Math.max(cursor.sequence, frame.sequence ?? 0),
        revision: Math.max(cursor.revision, frame.revision ?? 0),
      };
    }
    const other = await RecordingSocket.open(wsUrl(host, base));
    await host.fetchJson(`${base}/test/start?runId=r6&text=r6`, { method: "POST" });
    await other.waitFor((messages) =>
      agentFrames(messages).some((frame) => frame.event.kind === "finished" && frame.event.runId === "r6"),
    );
    other.close();
    const query = `${AGENT_TOOL_PAGE_PARAM}=2&${AGENT_TOOL_CURSORS_PARAM}=${encodeURIComponent(encodeAgentToolCursors(cursors))}`;
    const back = await RecordingSocket.open(wsUrl(host, `${base}?${query}`));
    await back.waitFor((messages) => pageFrames(messages).length === 1);
    expect(runsOf(back.messages)).toEqual(["r6"]);
    expect(pageFrames(back.messages)[0]).toMatchObject({ hasOlder: true });
    back.close();

    // Without the parameter: every retained run, oldest first, and no page frame.
    const plain = await RecordingSocket.open(wsUrl(host, base));
    await plain.waitFor(
      (messages) => agentFrames(messages).filter((frame) => frame.event.kind === "finished").length === 6,
    );
    expect(runsOf(plain.messages)).toEqual(["r1", "r2", "r3", "r4", "r5", "r6"]);
    expect(pageFrames(plain.messages)).toEqual([]);
    plain.close();
  });
});
