// AgentToolParent and AgentToolChild in workerd: start-up by itself, drill-in only to the parent's own runs, direct
// chat with a child, the authorization hook, and run read tokens (every bad-token case refused, no child created).
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { importRunReadTokenKey, signRunReadToken } from "../src/auth/run-read-token.js";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const SECRET = "test-secret-of-at-least-16-characters";
const KEY = "parent-key";

type RunInfo = { runId: string; agentType: string; status: string };
type Message = { id: string; role: string; parts: Array<{ type: string; text?: string }> };

const startHost = hostWorkerPerTest("agent-tools-cloudflare-");
const start = (bindings: Record<string, string> = {}) =>
  startHost({ AGENT_TOOLS_RUN_TOKEN_SECRET: SECRET, ...bindings });

const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");
const isTerminalOf = (runId: string) => (messages: unknown[]) =>
  agentFrames(messages).some(
    (frame) => "runId" in frame.event && frame.event.runId === runId && frame.event.kind === "finished",
  );
const textOf = (message: Message | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("");
const constructedEchoes = async (running: MiniflareHost) =>
  (await running.fetchJson<{ echo: number }>("/constructed")).echo;

describe("AgentToolParent starts itself", () => {
  it("after a restart, re-attaches to a run in flight and fires its finish hook once, with no call but a request", async () => {
    // The child says two words, then holds until cancelled: the run is in flight at the restart, however slow the
    // machine; after it, without the hold, the resumed run completes.
    const running = await start({ ECHO_HOLD_AFTER: "2" });
    const base = "/agents/parent/p1";
    const events = await RecordingSocket.open(wsUrl(running, base));
    await running.fetchJson(`${base}/test/start?runId=long&text=${encodeURIComponent("one two three four five six")}`, {
      method: "POST",
    });
    // Restart once the child has streamed something, before it ends.
    await events.waitFor((messages) => agentFrames(messages).some((frame) => frame.event.kind === "chunk"));
    events.close();
    await running.restart({ AGENT_TOOLS_RUN_TOKEN_SECRET: SECRET });

    // Any request wakes the parent; its constructor alone starts recovery, detached runs and the finish hooks.
    const after = await RecordingSocket.open(wsUrl(running, base));
    await after.waitFor(isTerminalOf("long"));
    after.close();
    const runs = await running.fetchJson<RunInfo[]>(`${base}/runs`);
    expect(runs).toMatchObject([{ runId: "long", status: "completed" }]);
    await expect
      .poll(() => running.fetchJson<Array<{ run_id: string; status: string; calls: number }>>(`${base}/test/hooks`))
      .toEqual([{ run_id: "long", status: "completed", calls: 1 }]);
    const drill = await running.fetchJson<{ messages: Message[] }>(`${base}/sub/Echo/long`);
    expect(textOf(drill.messages.find((message) => message.role === "assistant"))).toBe(
      "#1 one two three four five six",
    );
  });

  it("answers a chat message sent from code, stored with its user message", async () => {
    const running = await start();
    const base = "/agents/parent/p2";
    const answer = await running.fetchJson<Message>(`${base}/test/send?text=hello`, { method: "POST" });
    expect(textOf(answer)).toBe("The echo said: #1 hello");
    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(stored[1]?.id).toBe(answer.id);
  });
});

describe("drill-in", () => {
  it("serves the parent's own runs, and 404 for any other without creating a child", async () => {
    const running = await start();
    const base = "/agents/parent/p3";
    await running.fetchJson(`${base}/test/send?text=hi`, { method: "POST" });
    const [run] = await running.fetchJson<RunInfo[]>(`${base}/runs`);
    expect(run?.agentType).toBe("Echo");
    const drill = await running.fetchJson<{ messages: Message[] }>(
      `${base}/sub/Echo/${encodeURIComponent(run?.runId ?? "")}`,
    );
    expect(drill.messages.map((message) => message.role)).toEqual(["user", "assistant"]);

    const before = await constructedEchoes(running);
    for (const path of ["/sub/Echo/guessed-run", `/sub/Nope/${encodeURIComponent(run?.runId ?? "")}`]) {
      expect((await running.fetch(`${base}${path}`)).status).toBe(404);
    }
    // Another parent never sees this parent's run.
    expect((await running.fetch(`/agents/parent/p4/sub/Echo/${encodeURIComponent(run?.runId ?? "")}`)).status).toBe(
      404,
    );
    expect(await constructedEchoes(running)).toBe(before);
  });
});

describe("direct chat with a child (subAgent)", () => {
  it("streams each answer and keeps each named conversation apart", async () => {
    const running = await start();
    const base = "/agents/parent/p5";
    const ask = async (name: string, text: string) =>
      (await running.fetchJson<{ answer: string }>(`${base}/test/direct?name=${name}&text=${text}`, { method: "POST" }))
        .answer;
    expect(await ask("notes", "hello")).toBe("#1 hello");
    expect(await ask("notes", "again")).toBe("#2 again");
    expect(await ask("other", "fresh")).toBe("#1 fresh");
    const notes = await running.fetchJson<Message[]>(`${base}/test/direct-messages?name=notes`);
    expect(notes.map((message) => [message.role, textOf(message)])).toEqual([
      ["user", "hello"],
      ["assistant", "#1 hello"],
      ["user", "again"],
      ["assistant", "#2 again"],
    ]);
    // A direct conversation is not an agent-tool run of the parent.
    expect(await running.fetchJson<RunInfo[]>(`${base}/runs`)).toEqual([]);
  });
});

describe("direct chat with a child, cancelled", () => {
  it("aborting the signal cancels the child's run: it ends aborted, the stream ends, the answer so far is kept", async () => {
    // The Echo holds after three words until cancelled: it cannot finish before the abort, however slow the machine.
    const running = await start({ ECHO_HOLD_AFTER: "3" });
    const base = "/agents/parent/p10";
    const text = encodeURIComponent("one two three four five six seven eight nine ten");
    const result = await running.fetchJson<{ answer: string; status: string; error?: string }>(
      `${base}/test/direct-abort?name=notes&text=${text}`,
      { method: "POST" },
    );
    expect(result).toMatchObject({ status: "aborted", error: "Cancelled by the parent" });
    // The first word came before the abort; the child stopped long before the tenth.
    expect(result.answer.startsWith("#1")).toBe(true);
    expect(result.answer).not.toContain("ten");
    const notes = await running.fetchJson<Message[]>(`${base}/test/direct-messages?name=notes`);
    expect(notes.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(textOf(notes[1])).toBe(result.answer);
  });
});

describe("authorization and run read tokens", () => {
  const base = "/agents/parent/p6";
  const authorized = { headers: { authorization: `Bearer ${KEY}` } };

  async function withRun(): Promise<{ running: MiniflareHost; runId: string; token: string }> {
    const running = await start({ PARENT_KEY: KEY });
    await running.fetchJson(`${base}/test/send?text=secret`, { method: "POST", ...authorized });
    const [run] = await running.fetchJson<RunInfo[]>(`${base}/runs`, authorized);
    const runId = run?.runId ?? "";
    const { token } = await running.fetchJson<{ token: string }>(
      `${base}/sub/Echo/${encodeURIComponent(runId)}/token`,
      authorized,
    );
    return { running, runId, token };
  }

  it("runs the authorization hook on every route and socket upgrade", async () => {
    const running = await start({ PARENT_KEY: KEY });
    for (const path of ["/runs", "/messages", "/test/hooks", "/sub/Echo/anything"]) {
      expect((await running.fetch(`${base}${path}`)).status, path).toBe(401);
      expect((await running.fetch(`${base}${path}`, authorized)).status, path).not.toBe(401);
    }
    expect((await running.fetch(`${base}/clear`, { method: "POST" })).status).toBe(401);
    expect((await running.fetch(`${base}/chat/stop/turn-1`, { method: "POST" })).status).toBe(401);
    await expect(RecordingSocket.open(wsUrl(running, base))).rejects.toThrow(/401/);
    await expect(RecordingSocket.open(wsUrl(running, `${base}/chat`))).rejects.toThrow(/401/);
    const events = await RecordingSocket.open(wsUrl(running, `${base}?key=${KEY}`));
    expect(events.open).toBe(true);
    events.close();
  });

  it("lets a valid token drill in to its run without the parent's key", async () => {
    const { running, runId, token } = await withRun();
    const response = await running.fetch(`${base}/sub/Echo/${encodeURIComponent(runId)}?token=${token}`);
    expect(response.status).toBe(200);
    const drill = (await response.json()) as { messages: Message[] };
    expect(textOf(drill.messages.find((message) => message.role === "assistant"))).toBe("#1 secret");
  });

  it("refuses forged, expired, wrong-run and missing tokens with 401/403, and creates no child", async () => {
    const { running, runId, token } = await withRun();
    const [version, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { p: string };
    const key = await importRunReadTokenKey(SECRET);
    const expired = await signRunReadToken(key, {
      parentId: claims.p,
      agentType: "Echo",
      runId,
      expiresAt: Date.now() - 1_000,
    });
    const otherRun = await signRunReadToken(key, {
      parentId: claims.p,
      agentType: "Echo",
      runId: "another-run",
      expiresAt: Date.now() + 60_000,
    });
    const otherParent = await signRunReadToken(key, {
      parentId: "0".repeat(64),
      agentType: "Echo",
      runId,
      expiresAt: Date.now() + 60_000,
    });
    const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, e: Date.now() + 3_600_000 })).toString("base64url");
    const cases: Array<[string, string | null, number]> = [
      ["forged signature", `${version}.${payload}.${flipped}`, 401],
      ["forged payload", `${version}.${forgedPayload}.${signature}`, 401],
      [
        "signed with another secret",
        await signRunReadToken(await importRunReadTokenKey("another-secret-0123456789"), {
          parentId: claims.p,
          agentType: "Echo",
          runId,
          expiresAt: Date.now() + 60_000,
        }),
        401,
      ],
      ["malformed", "not-a-token", 401],
      ["expired", expired, 401],
      ["another run's", otherRun, 403],
      ["another parent's", otherParent, 403],
      ["missing (and no key)", null, 401],
    ];
    const before = await constructedEchoes(running);
    for (const [label, bad, status] of cases) {
      const query = bad === null ? "" : `?token=${encodeURIComponent(bad)}`;
      expect((await running.fetch(`${base}/sub/Echo/${encodeURIComponent(runId)}${query}`)).status, label).toBe(status);
    }
    // A valid token of one run opens no other run, even one that does not exist.
    expect((await running.fetch(`${base}/sub/Echo/guessed?token=${token}`)).status).toBe(403);
    expect(await constructedEchoes(running)).toBe(before);
  });
});

describe("cancel", () => {
  it("cancels a live run with the client's reason, which the run's failure carries; a bad body changes nothing", async () => {
    // The Echo says two words, then holds until cancelled: the run is live for every request below, however slow.
    const running = await start({ ECHO_HOLD_AFTER: "2" });
    const base = "/agents/parent/p9";
    const events = await RecordingSocket.open(wsUrl(running, base));
    const text = "one two three four five six seven eight nine ten";
    await running.fetchJson(`${base}/test/start?runId=long&text=${encodeURIComponent(text)}`, { method: "POST" });
    await events.waitFor((messages) => agentFrames(messages).some((frame) => frame.event.kind === "chunk"));

    const refused = await running.fetch(`${base}/cancel/long`, { method: "POST", body: '{"reason":42}' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "reason must be a non-empty string", code: "INVALID_ARGUMENT" });
    expect(await running.fetchJson<RunInfo[]>(`${base}/runs`)).toMatchObject([{ runId: "long", status: "running" }]);

    // A body over the limit (16 KiB) is refused before it is read, and changes nothing. (Just over it: a much larger
    // one may still be on its way when the connection closes, which the sender sees as a reset, not the 413.)
    const huge = await running.fetch(`${base}/cancel/long`, {
      method: "POST",
      body: JSON.stringify({ reason: "x", padding: "y".repeat(20_000) }),
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ error: "The request body is larger than 16384 bytes", code: "LIMIT_EXCEEDED" });
    expect(await running.fetchJson<RunInfo[]>(`${base}/runs`)).toMatchObject([{ runId: "long", status: "running" }]);

    const cancelled = await running.fetchJson(`${base}/cancel/long`, { body: { reason: "Stopped by Ana" } });
    expect(cancelled).toEqual({ cancelled: true });
    await events.waitFor((messages) => agentFrames(messages).some((frame) => frame.event.kind === "aborted"));
    events.close();
    const aborted = agentFrames(events.messages).find((frame) => frame.event.kind === "aborted");
    expect(aborted?.event).toMatchObject({ runId: "long", error: "Stopped by Ana" });
    expect(await running.fetchJson<RunInfo[]>(`${base}/runs`)).toMatchObject([{ runId: "long", status: "aborted" }]);
  });
});
