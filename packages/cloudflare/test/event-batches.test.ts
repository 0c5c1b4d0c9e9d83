// Batches on AgentToolParent's event socket (SPEC §6, issue 33), in workerd: a socket that asked (`agentToolBatch=1`)
// gets a synchronous stretch's frames as one JSON array message, one that did not gets one frame per message, on one
// parent at once and with the same frames in the same order; replay and pages too. The opt-in is the socket's tag, so
// it survives the object's eviction with the socket (hibernation).
import { setTimeout as sleep } from "node:timers/promises";
import {
  AGENT_TOOL_BATCH_PARAM,
  AGENT_TOOL_PAGE_PARAM,
  AGENT_TOOL_PAGE_REQUEST_TYPE,
  type AgentToolEventFrame,
  type AgentToolPageFrame,
} from "@agent-tools/core-runs/protocol";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-event-batches-");

/** Every frame a socket got, a batch's frames in their order. */
const framesOf = (messages: unknown[]) => messages.flatMap((message) => (Array.isArray(message) ? message : [message]));
const batchesOf = (messages: unknown[]) => messages.filter((message) => Array.isArray(message)) as unknown[][];
const finished = (messages: unknown[], runId: string) =>
  framesOf(messages).some((frame) => {
    const { type, event } = frame as AgentToolEventFrame;
    return type === "agent-tool-event" && event.kind === "finished" && event.runId === runId;
  });
const pagesOf = (messages: unknown[]) =>
  framesOf(messages).filter((frame) => (frame as { type?: string }).type === "agent-tool-page") as AgentToolPageFrame[];

async function startRuns(host: MiniflareHost, base: string, runIds: string[]) {
  for (const runId of runIds) {
    await host.fetchJson(`${base}/test/start?runId=${runId}&text=${encodeURIComponent(`words of ${runId} here`)}`, {
      method: "POST",
    });
  }
}

/** workerd evicts an object that has had nothing to do for 10 s; its hibernatable sockets stay open meanwhile. */
const WORKERD_IDLE_EVICTION_MS = 10_000;

describe("batches on the event socket", () => {
  it("batches a stretch to a socket that asked and sends one frame per message to one that did not, on one parent", async () => {
    const host = await start();
    const base = "/agents/parent/batches";
    const batched = await RecordingSocket.open(wsUrl(host, `${base}?${AGENT_TOOL_BATCH_PARAM}=1`));
    const plain = await RecordingSocket.open(wsUrl(host, base));
    // Two runs at once: their frames interleave, in the same order on both sockets.
    await startRuns(host, base, ["r1", "r2"]);
    for (const socket of [batched, plain]) {
      await socket.waitFor((messages) => finished(messages, "r1") && finished(messages, "r2"));
    }
    expect(batchesOf(plain.messages)).toEqual([]);
    expect(framesOf(batched.messages)).toEqual(plain.messages);
    expect(batchesOf(batched.messages).every((batch) => batch.length > 1)).toBe(true);

    // Replay: a run's retained frames go in one stretch, so in batches to a socket that asked (a page frame too).
    const late = await RecordingSocket.open(wsUrl(host, `${base}?${AGENT_TOOL_BATCH_PARAM}=1`));
    const latePlain = await RecordingSocket.open(wsUrl(host, base));
    const paged = await RecordingSocket.open(
      wsUrl(host, `${base}?${AGENT_TOOL_BATCH_PARAM}=1&${AGENT_TOOL_PAGE_PARAM}=1`),
    );
    for (const socket of [late, latePlain]) {
      await socket.waitFor((messages) => finished(messages, "r1") && finished(messages, "r2"));
    }
    await paged.waitFor((messages) => pagesOf(messages).length === 1);
    expect(batchesOf(latePlain.messages)).toEqual([]);
    expect(batchesOf(late.messages).length).toBeGreaterThan(0);
    expect(late.messages.length).toBeLessThan(latePlain.messages.length);
    expect(framesOf(late.messages)).toEqual(latePlain.messages);
    expect(framesOf(paged.messages).at(-1)).toMatchObject({ type: "agent-tool-page", runs: 1, hasOlder: true });
    expect(batchesOf(paged.messages).length).toBeGreaterThan(0);
    for (const socket of [batched, plain, late, latePlain, paged]) socket.close();
  });

  // workerd evicts an object only after 10 s with nothing to do (a restart would close the sockets too), so this test
  // waits that long in real time: it runs on demand (`AGENT_TOOLS_EVICTION_TEST=1`), not in the default suite, where
  // no test sleeps. What it checks in the default suite's terms: the opt-in is the socket's tag, read at each flush.
  it.runIf(process.env["AGENT_TOOLS_EVICTION_TEST"] === "1")(
    "reads a socket's opt-in from its tag after the object was evicted: its page still batched, an old-style socket's per frame",
    async () => {
      // No wake-up alarm of the parent's own in the idle time (it would keep the object in memory).
      const host = await start({ PARENT_WAKE_MS: "3600000" });
      const base = "/agents/parent/evicted";
      const paging = `${AGENT_TOOL_PAGE_PARAM}=1`;
      const batched = await RecordingSocket.open(wsUrl(host, `${base}?${paging}&${AGENT_TOOL_BATCH_PARAM}=1`));
      const plain = await RecordingSocket.open(wsUrl(host, `${base}?${paging}`));
      await Promise.all([batched, plain].map((socket) => socket.waitFor((messages) => pagesOf(messages).length === 1)));
      await startRuns(host, base, ["r1"]);
      await Promise.all([batched, plain].map((socket) => socket.waitFor((messages) => finished(messages, "r1"))));
      await startRuns(host, base, ["r2"]);
      await Promise.all([batched, plain].map((socket) => socket.waitFor((messages) => finished(messages, "r2"))));
      const { parent: constructedBefore } = await constructedCount(host);

      // Nothing to do: workerd evicts the parent, and the sockets stay open.
      await sleep(WORKERD_IDLE_EVICTION_MS + 2_000);
      expect([batched.open, plain.open]).toEqual([true, true]);

      // The page before r2 (that is r1), asked on each socket: a new instance answers, reading only the socket's tags.
      const marks = [batched.messages.length, plain.messages.length];
      const position = `${startedAt(batched.messages, "r2")}:r2`;
      for (const socket of [batched, plain])
        socket.send({ type: AGENT_TOOL_PAGE_REQUEST_TYPE, before: position, limit: 1 });
      for (const socket of [batched, plain]) await socket.waitFor((messages) => pagesOf(messages).length === 2);
      const { parent: constructedAfter } = await constructedCount(host);
      expect(constructedAfter).toBeGreaterThan(constructedBefore);

      const [batchedPage, plainPage] = [batched.messages.slice(marks[0]), plain.messages.slice(marks[1])];
      expect(batchesOf(plainPage)).toEqual([]);
      expect(batchesOf(batchedPage).length).toBeGreaterThan(0);
      expect(batchedPage.length).toBeLessThan(plainPage.length);
      expect(framesOf(batchedPage)).toEqual(plainPage);
      expect(framesOf(plainPage).some((frame) => JSON.stringify(frame).includes('"runId":"r1"'))).toBe(true);
      for (const socket of [batched, plain]) socket.close();
    },
    60_000,
  );
});

/** When run `runId` started, from its `started` frame. */
function startedAt(messages: unknown[], runId: string): number {
  for (const frame of framesOf(messages) as AgentToolEventFrame[]) {
    if (frame.event?.kind === "started" && frame.event.runId === runId && frame.event.startedAt !== undefined) {
      return frame.event.startedAt;
    }
  }
  throw new Error(`no started frame with startedAt for ${runId}`);
}

async function constructedCount(host: MiniflareHost): Promise<{ parent: number }> {
  return host.fetchJson<{ parent: number }>("/constructed");
}
