import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type ChatFrame = { type: string; requestId: string; sequence?: number; chunk?: UIMessageChunk };
type PreliminaryOutput = { status: string; message: UIMessage | null; result?: unknown };

const start = hostWorkerPerTest("agent-tools-preliminary-");

const framesOf = (messages: unknown[], requestId: string) =>
  (messages as ChatFrame[]).filter((frame) => frame.requestId === requestId);
const outputsOf = (frames: ChatFrame[]) =>
  frames.flatMap((frame) => (frame.chunk?.type === "tool-output-available" ? [frame.chunk] : []));
const textOf = (message: UIMessage | null | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
const isEnd = (requestId: string) => (messages: unknown[]) =>
  framesOf(messages, requestId).some((frame) => frame.type === "end" || frame.type === "error");

describe("agentTool preliminaryResults behind the chat socket", () => {
  it("streams the child's answer into the tool part, to the sender and to a tab that resumes the turn", async () => {
    // The child says its words 40 ms apart (its answer grows in several updates) and holds after four of them until
    // the test releases it: the turn is in flight when the second tab joins, however slow the machine.
    const host = await start({ PRELIMINARY: "1", ECHO_PACE_MS: "40", ECHO_HOLD_AFTER: "4" });
    const base = "/agents/parent/p1";
    const words = "one two three four five six seven eight";
    const sender = await RecordingSocket.open(wsUrl(host, `${base}/chat`));
    sender.send({
      type: "send",
      requestId: "req-1",
      id: "chat",
      trigger: "submit-message",
      messages: [{ id: "user-1", role: "user", parts: [{ type: "text", text: words }] }],
      headers: {},
      body: {},
    });
    // A second tab joins once the child has said something.
    await sender.waitFor((messages) =>
      outputsOf(framesOf(messages, "req-1")).some(
        (chunk) => textOf((chunk.output as PreliminaryOutput).message) !== "",
      ),
    );
    const tab = await RecordingSocket.open(wsUrl(host, `${base}/chat`));
    tab.send({ type: "resume", requestId: "req-2", id: "chat", headers: {}, body: {} });
    // The tab follows the turn (its replay has come): the child may finish now.
    await tab.waitFor((messages) => outputsOf(framesOf(messages, "req-2")).length > 0);
    await host.fetchJson("/test/echo-release", { method: "POST" });
    await sender.waitFor(isEnd("req-1"));
    await tab.waitFor(isEnd("req-2"));

    for (const [socket, requestId] of [
      [sender, "req-1"],
      [tab, "req-2"],
    ] as const) {
      const frames = framesOf(socket.messages, requestId);
      expect(frames.at(-1)?.type).toBe("end");
      // Each follower's numbering is gap-free from 0, as the AI SDK's transport requires.
      const sequences = frames.flatMap((frame) => (frame.type === "chunk" ? [frame.sequence] : []));
      expect(sequences).toEqual(sequences.map((_, index) => index));
      const outputs = outputsOf(frames);
      const final = outputs.at(-1);
      expect(final?.preliminary).toBeUndefined();
      expect(final?.output).toMatchObject({ status: "completed", result: `#1 ${words}` });
      expect(textOf((final?.output as PreliminaryOutput | undefined)?.message)).toBe(`#1 ${words}`);
      expect(outputs.slice(0, -1).every((chunk) => chunk.preliminary === true)).toBe(true);
    }
    // The sender saw the child's answer grow; the tab that joined late starts from the latest value.
    const growing = outputsOf(framesOf(sender.messages, "req-1")).map((chunk) =>
      textOf((chunk.output as PreliminaryOutput).message),
    );
    expect(new Set(growing).size).toBeGreaterThan(2);
    const joined = outputsOf(framesOf(tab.messages, "req-2"));
    expect(textOf((joined[0]?.output as PreliminaryOutput | undefined)?.message)).not.toBe("");

    // The stored answer: the tool part with the final value (a reload shows the child's answer), then the model's
    // answer, which got only the summary.
    const stored = await host.fetchJson<UIMessage[]>(`${base}/messages`);
    const answer = stored.find((message) => message.role === "assistant");
    const toolPart = answer?.parts.find((part) => part.type === "tool-echo") as
      | { state: string; output: PreliminaryOutput }
      | undefined;
    expect(toolPart?.state).toBe("output-available");
    expect(textOf(toolPart?.output.message)).toBe(`#1 ${words}`);
    expect(textOf(answer)).toBe(`The echo said: #1 ${words}`);
    sender.close();
    tab.close();
  });
});
