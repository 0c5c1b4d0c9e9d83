import { afterEach, describe, expect, it } from "vitest";
import { createRunEventHub, getDefaultRunEventHub } from "./run-event-hub.js";
import type { RunEvent } from "./run-events.js";

const event = (runId: string): RunEvent => ({ type: "agent_tool:run:start", runId, agentType: "Child", at: 1 });

describe("createRunEventHub", () => {
  it("delivers events to subscribers until they unsubscribe", () => {
    const hub = createRunEventHub();
    const received: RunEvent[] = [];
    expect(hub.hasListeners).toBe(false);
    const unsubscribe = hub.subscribe((item) => received.push(item));
    expect(hub.hasListeners).toBe(true);
    hub.emit(event("a"));
    unsubscribe();
    expect(hub.hasListeners).toBe(false);
    hub.emit(event("b"));
    expect(received).toEqual([event("a")]);
  });

  it("emits with nobody listening without error", () => {
    expect(() => createRunEventHub().emit(event("a"))).not.toThrow();
  });

  it("unsubscribing twice is harmless and leaves other listeners in place", () => {
    const hub = createRunEventHub();
    const first: string[] = [];
    const second: string[] = [];
    const unsubscribeFirst = hub.subscribe(() => first.push("x"));
    hub.subscribe(() => second.push("x"));
    unsubscribeFirst();
    unsubscribeFirst();
    hub.emit(event("a"));
    expect(first).toEqual([]);
    expect(second).toEqual(["x"]);
  });

  it("delivers in subscription order", () => {
    const hub = createRunEventHub();
    const order: number[] = [];
    hub.subscribe(() => order.push(1));
    hub.subscribe(() => order.push(2));
    hub.subscribe(() => order.push(3));
    hub.emit(event("a"));
    expect(order).toEqual([1, 2, 3]);
  });

  it("a throwing listener does not stop the others or the emitter", () => {
    const hub = createRunEventHub();
    const received: string[] = [];
    hub.subscribe(() => received.push("before"));
    hub.subscribe(() => {
      throw new Error("listener bug");
    });
    hub.subscribe(() => received.push("after"));
    expect(() => hub.emit(event("a"))).not.toThrow();
    expect(() => hub.emit(event("b"))).not.toThrow();
    expect(received).toEqual(["before", "after", "before", "after"]);
  });
});

describe("getDefaultRunEventHub", () => {
  const hubKey = Symbol.for("agent-tools.run-event-hub");
  const holder = globalThis as { [hubKey]?: unknown };
  const original = holder[hubKey];

  afterEach(() => {
    if (original === undefined) delete holder[hubKey];
    else holder[hubKey] = original;
  });

  it("is one hub per process", () => {
    const hub = getDefaultRunEventHub();
    expect(getDefaultRunEventHub()).toBe(hub);
    expect(holder[hubKey]).toBe(hub);
  });

  it("is shared through globalThis, so another copy of the package meets the same hub", () => {
    const fromAnotherCopy = createRunEventHub();
    holder[hubKey] = fromAnotherCopy;
    expect(getDefaultRunEventHub()).toBe(fromAnotherCopy);

    const received: RunEvent[] = [];
    const unsubscribe = fromAnotherCopy.subscribe((item) => received.push(item));
    getDefaultRunEventHub().emit(event("a"));
    unsubscribe();
    expect(received).toEqual([event("a")]);
  });

  it("creates the hub when no copy has yet", () => {
    delete holder[hubKey];
    const hub = getDefaultRunEventHub();
    expect(holder[hubKey]).toBe(hub);
    expect(hub.hasListeners).toBe(false);
  });
});
