// Paged replay on AgentToolParent's event socket (SPEC §6), in workerd: a client that asks with `agentToolPage` gets
// the newest runs and a page frame, asks for older pages on the same socket, and after a reconnect with its cursors
// gets only what it missed; a client that does not ask gets every run, as before. Page requests are bounded (issue 36):
// a socket's requests past its budget are refused, and one page of older runs sends at most so many bytes.
import {
  AGENT_TOOL_CURSORS_PARAM,
  AGENT_TOOL_PAGE_PARAM,
  AGENT_TOOL_PAGE_REQUEST_TYPE,
  type AgentToolEventFrame,
  type AgentToolPageFrame,
  encodeAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
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

type RunInfo = { runId: string; status: string };

/** Start runs `runIds` of the Echo (saying `text`, else its run id) one after the other, each until it finished. */
async function finishedRuns(host: MiniflareHost, base: string, runIds: string[], text?: string) {
  const watcher = await RecordingSocket.open(wsUrl(host, base));
  for (const runId of runIds) {
    await host.fetchJson(`${base}/test/start?runId=${runId}&text=${encodeURIComponent(text ?? runId)}`, {
      method: "POST",
    });
    await watcher.waitFor((messages) =>
      agentFrames(messages).some((frame) => frame.event.kind === "finished" && frame.event.runId === runId),
    );
  }
  watcher.close();
}

/** The messages a socket got after its `index`-th page frame (from 0) up to the next one, and that page frame. */
function pageAt(messages: unknown[], index: number): { frames: AgentToolEventFrame[]; page: AgentToolPageFrame } {
  const ends = messages.flatMap((message, at) =>
    (message as { type?: string }).type === "agent-tool-page" ? [at] : [],
  );
  const from = index === 0 ? 0 : (ends[index - 1] ?? 0) + 1;
  const to = ends[index] ?? messages.length;
  return { frames: agentFrames(messages.slice(from, to)), page: messages[to] as AgentToolPageFrame };
}

/** A frame's size as the parent sent it (its JSON text, UTF-8). */
const bytesOf = (frames: unknown[]) =>
  frames.reduce<number>((sum, frame) => sum + Buffer.byteLength(JSON.stringify(frame)), 0);

describe("paged replay", () => {
  it("sends a paging client the newest runs, then older pages on request; a reconnect gets only what it missed", async () => {
    const host = await start();
    const base = "/agents/parent/pages";
    await finishedRuns(host, base, ["r1", "r2", "r3", "r4", "r5"]);

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

  it("answers a socket's page requests past its budget with a refusal that replays nothing; /runs is answered meanwhile", async () => {
    // Three page requests a socket, and no more for an hour.
    const host = await start({ PARENT_PAGE_BURST: "3", PARENT_PAGE_REFILL_MS: "3600000" });
    const base = "/agents/parent/flood";
    await finishedRuns(host, base, ["r1", "r2", "r3"]);
    const client = await RecordingSocket.open(wsUrl(host, `${base}?${AGENT_TOOL_PAGE_PARAM}=1`));
    await client.waitFor((messages) => pageFrames(messages).length === 1);
    const before = pageFrames(client.messages)[0]?.before;
    expect(before).toBeDefined();
    const afterFirst = client.messages.length;
    for (let request = 0; request < 200; request += 1) {
      client.send({ type: AGENT_TOOL_PAGE_REQUEST_TYPE, before, limit: 500 });
    }
    // Sent while the flood is being answered: the runs come back.
    const runs = await host.fetchJson<RunInfo[]>(`${base}/runs`);
    expect(runs.map((run) => [run.runId, run.status])).toEqual([
      ["r1", "completed"],
      ["r2", "completed"],
      ["r3", "completed"],
    ]);
    await client.waitFor((messages) => pageFrames(messages).length === 201);
    const answers = pageFrames(client.messages).slice(1);
    const served = answers.filter((page) => page.retryAfterMs === undefined);
    expect(served).toEqual(Array.from({ length: 3 }, () => ({ type: "agent-tool-page", runs: 2, hasOlder: false })));
    const refused = answers.filter((page) => page.retryAfterMs !== undefined);
    expect(refused).toHaveLength(197);
    for (const page of refused) {
      expect(page).toEqual({ type: "agent-tool-page", runs: 0, hasOlder: true, before, retryAfterMs: 3_600_000 });
    }
    // What was replayed: the two older runs, three times, and nothing for the refused requests.
    const replayed = agentFrames(client.messages.slice(afterFirst));
    const onePage = pageAt(client.messages, 1).frames;
    expect(runsOf(onePage)).toEqual(["r2", "r1"]);
    expect(replayed).toHaveLength(3 * onePage.length);
    client.close();
  });

  it("ends a page of older runs once it would send more bytes than the parent allows, at least one run a page", async () => {
    // Six runs of about 10 kB of frames each (one frame a word); a page of older runs may send 25 000 bytes.
    const host = await start({ PARENT_MAX_PAGE_BYTES: "25000" });
    const base = "/agents/parent/heavy";
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
    await finishedRuns(host, base, ["r1", "r2", "r3", "r4", "r5", "r6"], words);
    const client = await RecordingSocket.open(wsUrl(host, `${base}?${AGENT_TOOL_PAGE_PARAM}=1`));
    await client.waitFor((messages) => pageFrames(messages).length === 1);
    const runBytes = bytesOf(pageAt(client.messages, 0).frames);
    expect(runBytes).toBeGreaterThan(8_000);
    expect(runBytes).toBeLessThan(12_500);
    const pages: string[][] = [];
    for (let index = 1; ; index += 1) {
      const { before } = pageFrames(client.messages)[index - 1] ?? {};
      client.send({ type: AGENT_TOOL_PAGE_REQUEST_TYPE, before, limit: 500 });
      await client.waitFor((messages) => pageFrames(messages).length === index + 1);
      const { frames, page } = pageAt(client.messages, index);
      expect(bytesOf(frames)).toBeLessThanOrEqual(25_000);
      pages.push(runsOf(frames));
      if (!page.hasOlder) break;
    }
    // Two runs fit a page, a third would not; every older run comes once, in order.
    expect(pages).toEqual([["r5", "r4"], ["r3", "r2"], ["r1"]]);
    client.close();
  });
});
