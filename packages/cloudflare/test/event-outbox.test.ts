// The order of what a parent sends its event sockets (SPEC §6, batches), in Node over a fake port: a stretch's texts go
// out at its end, as one batch to a socket that asked and one per message to one that did not; one socket's own texts
// (its replay) keep their place among the broadcasts; a long stretch is split under the bound; and a socket accepted mid-stretch — after `flush()`, as
// `ParentEventSockets.connect` does — gets none of what was broadcast before it and all of what came after, once.
import { AGENT_TOOL_EVENT_TYPE, type AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { flushMicrotasks } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { EventOutbox } from "../src/parent/event-outbox.js";

type Socket = { name: string; batches: boolean; open: boolean; sent: string[] };

function outboxOver(sockets: Socket[]) {
  let lookups = 0;
  const outbox = new EventOutbox<Socket>({
    sockets: () => {
      lookups += 1;
      return {
        batched: sockets.filter((socket) => socket.batches),
        plain: sockets.filter((socket) => !socket.batches),
      };
    },
    isOpen: (socket) => socket.open,
    send: (socket, message) => {
      socket.sent.push(message);
    },
  });
  return { outbox, lookups: () => lookups };
}

const socket = (name: string, batches: boolean): Socket => ({ name, batches, open: true, sent: [] });
const frame = (runId: string, sequence: number, replay = false) =>
  JSON.stringify({
    type: AGENT_TOOL_EVENT_TYPE,
    sequence,
    ...(replay ? { replay: true } : {}),
    event: { kind: "chunk", runId, body: { type: "text-delta", id: "t", delta: `${sequence}` } },
  } satisfies AgentToolEventFrame);
const chatEvent = JSON.stringify({ type: "agent-chat-event", event: { kind: "history" } });

describe("EventOutbox", () => {
  it("writes a stretch at its end: one batch to a socket that asked, one text per message to one that did not", async () => {
    const batched = socket("batched", true);
    const plain = socket("plain", false);
    const { outbox, lookups } = outboxOver([batched, plain]);
    const texts = [frame("r1", 1), frame("r2", 1), chatEvent, frame("r1", 2)];
    for (const text of texts) outbox.broadcast(text);
    expect([batched.sent, plain.sent]).toEqual([[], []]);
    await flushMicrotasks();
    expect(batched.sent).toEqual([`[${texts.join(",")}]`]);
    expect(plain.sent).toEqual(texts);
    expect(lookups()).toBe(1);

    // One text alone is a plain message to both.
    outbox.broadcast(frame("r1", 3));
    await flushMicrotasks();
    expect(batched.sent.at(-1)).toBe(frame("r1", 3));
    expect(plain.sent.at(-1)).toBe(frame("r1", 3));
  });

  it("keeps a socket's own texts in their place among the broadcasts", async () => {
    const batched = socket("batched", true);
    const plain = socket("plain", false);
    const { outbox } = outboxOver([batched, plain]);
    outbox.broadcast(frame("r1", 1));
    outbox.sendTo(batched, true, frame("r0", 1, true));
    outbox.sendTo(batched, true, frame("r0", 2, true));
    outbox.sendTo(plain, false, frame("r0", 1, true));
    outbox.broadcast(frame("r1", 2));
    outbox.broadcast(frame("r1", 3));
    await flushMicrotasks();
    expect(batched.sent).toEqual([
      frame("r1", 1),
      `[${frame("r0", 1, true)},${frame("r0", 2, true)}]`,
      `[${frame("r1", 2)},${frame("r1", 3)}]`,
    ]);
    expect(plain.sent).toEqual([frame("r1", 1), frame("r0", 1, true), frame("r1", 2), frame("r1", 3)]);
  });

  it("gives a socket accepted mid-stretch (after flush) its replay and what came after, never what came before", async () => {
    const first = socket("first", true);
    const sockets = [first];
    const { outbox } = outboxOver(sockets);
    outbox.broadcast(frame("r1", 1));
    outbox.broadcast(frame("r1", 2));
    // connect: flush, accept (and say the sockets changed), replay (read at once), in the same stretch as the
    // broadcasts around it.
    outbox.flush();
    const late = socket("late", true);
    sockets.push(late);
    outbox.socketsChanged();
    outbox.sendTo(late, true, frame("r0", 1, true));
    outbox.sendTo(late, true, frame("r0", 2, true));
    outbox.broadcast(frame("r1", 3));
    await flushMicrotasks();
    expect(first.sent).toEqual([`[${frame("r1", 1)},${frame("r1", 2)}]`, frame("r1", 3)]);
    expect(late.sent).toEqual([`[${frame("r0", 1, true)},${frame("r0", 2, true)}]`, frame("r1", 3)]);
  });

  it("keeps its list of sockets between stretches: looked up again once told they changed, or once one it holds closed", async () => {
    const first = socket("first", true);
    const sockets = [first];
    const { outbox, lookups } = outboxOver(sockets);
    for (const sequence of [1, 2, 3]) {
      outbox.broadcast(frame("r1", sequence));
      await flushMicrotasks();
    }
    expect(first.sent).toEqual([frame("r1", 1), frame("r1", 2), frame("r1", 3)]);
    expect(lookups()).toBe(1);
    // A socket accepted (as `connect` does: flush, accept, then say so): the next stretch looks the sockets up.
    outbox.flush();
    const second = socket("second", false);
    sockets.push(second);
    outbox.socketsChanged();
    outbox.broadcast(frame("r1", 4));
    await flushMicrotasks();
    expect(lookups()).toBe(2);
    expect(second.sent).toEqual([frame("r1", 4)]);
    // One closes: the next stretch looks them up again, and what the lookup still lists but is closed gets nothing.
    first.open = false;
    outbox.broadcast(frame("r1", 5));
    await flushMicrotasks();
    expect(lookups()).toBe(3);
    expect(first.sent.at(-1)).toBe(frame("r1", 4));
    expect(second.sent.at(-1)).toBe(frame("r1", 5));
    outbox.broadcast(frame("r1", 6));
    await flushMicrotasks();
    expect(lookups()).toBe(3);
    expect(second.sent.at(-1)).toBe(frame("r1", 6));
  });

  it("splits a long stretch into batches under the bound", async () => {
    const batched = socket("batched", true);
    const { outbox } = outboxOver([batched]);
    const big = (sequence: number) =>
      JSON.stringify({
        type: AGENT_TOOL_EVENT_TYPE,
        sequence,
        event: { kind: "chunk", runId: "r1", body: { type: "text-delta", id: "t", delta: "x".repeat(100_000) } },
      });
    const texts = [1, 2, 3, 4, 5].map(big);
    for (const text of texts) outbox.broadcast(text);
    await flushMicrotasks();
    expect(batched.sent).toEqual([`[${texts[0]},${texts[1]}]`, `[${texts[2]},${texts[3]}]`, texts[4]]);
  });
});
