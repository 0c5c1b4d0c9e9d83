import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoHost } from "../harness/demo.js";
import { base, hooksOf, listMessages, listRuns, openEvents, textOfMessage } from "./kill-observe.js";
import { BINDINGS, type DeliveryKill, judgeDelivery, killDuringDelivery } from "./kill-scenarios.js";

// Issue 17, point 5: the runtime is killed while the model streams its answer to a background run's completion (the
// delivery of a detached run with `notify`, held by the `delivery-answer` fault point). After the restart the
// delivery must be picked up at start-up, not when its 60 s lease runs out, and exactly once: one completion message,
// one answer — and the answer a connected client held in part is the one that finishes.

const chatId = "kill-delivery";
let persist: PersistDirectory;
let host: MiniflareHost;

beforeAll(async () => {
  persist = await createPersistDirectory("agent-tools-kill-delivery-");
  host = await startDemoHost(persist, BINDINGS);
});

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
});

describe("killed while the model answers a background run's completion", () => {
  let kill: DeliveryKill;

  it("retries the cut delivery at start-up, not a lease later", async () => {
    kill = await killDuringDelivery(host, chatId);
    // Cut in the middle of the delivery: claimed, with a lease of 60 s.
    expect(kill.leaseEnd).toBeGreaterThan(kill.settledSeenAt);
    expect(kill.settled?.delivery).toEqual({ settledRevision: kill.settled?.revision, deliveredStatus: "completed" });
    expect(judgeDelivery(kill).deliveredAtStartUp).toBe(true);
  });

  it("delivers once: one completion message, one answer to it, right after it", () => {
    expect(kill.completions).toHaveLength(1);
    expect(kill.answers).toHaveLength(1);
    const ids = kill.messages.map((message) => message.id);
    expect(ids.indexOf(kill.answers[0]?.id ?? "")).toBe(ids.indexOf(kill.completions[0]?.id ?? "") + 1);
    expect(judgeDelivery(kill).exactlyOnce).toBe(true);
  });

  it("finishes the answer the connected client held in part (same message), with no error", () => {
    const completionText = textOfMessage(kill.completions[0]);
    expect(kill.partialId).toEqual(expect.any(String));
    expect(kill.answers[0]?.id).toBe(kill.partialId);
    expect(textOfMessage(kill.answers[0])).toBe(`Update on your background task: ${completionText}`);
    // A resumed stream (the turn was still going when the client came back) replayed it whole, then ended.
    expect(kill.resume.error).toBeNull();
    if (kill.resume.kind === "replayed") {
      expect(kill.resume.messageId).toBe(kill.partialId);
      expect(kill.resume.text).toBe(textOfMessage(kill.answers[0]));
    }
  });

  it("the run is completed, its hooks called once; another restart delivers nothing again", async () => {
    expect((await listRuns(host, chatId)).map((run) => run.status)).toEqual(["completed"]);
    expect(await hooksOf(host, chatId, kill.runId)).toMatchObject({ start: 1, finish: { completed: 1 } });
    await host.restart(BINDINGS);
    const events = await openEvents(host, chatId);
    const [run] = await host.fetchJson<Array<{ delivery: unknown }>>(`${base(chatId)}/background`);
    expect(run?.delivery).toEqual(kill.settled?.delivery);
    expect(await listMessages(host, chatId)).toEqual(kill.messages);
    events.close();
  });
});
