import { describe, expect, it } from "vitest";
import {
  importRunReadTokenKey,
  isCurrentGeneration,
  runReadTokenStatus,
  signRunReadToken,
  verifyRunReadToken,
} from "../src/auth/run-read-token.js";
import { parseParentRoute } from "../src/parent/parent-routes.js";
import { matchAgentToolPath } from "../src/routing.js";

const route = (path: string, method = "GET", isUpgrade = false) =>
  parseParentRoute({ method, url: `https://example.com/agents/assistant/me${path}`, isUpgrade });

describe("parent routes", () => {
  it("names each route of a parent", () => {
    expect(route("", "GET", true)).toEqual({ kind: "events" });
    expect(route("/chat", "GET", true)).toEqual({ kind: "chat" });
    expect(route("/chat/stop/turn-1", "POST")).toEqual({ kind: "chat-stop", turnId: "turn-1" });
    expect(route("/messages")).toEqual({ kind: "messages" });
    expect(route("/runs")).toEqual({ kind: "runs" });
    expect(route("/clear", "POST")).toEqual({ kind: "clear" });
    expect(route("/cancel/agent-tool%3Acall-1", "POST")).toEqual({ kind: "cancel", runId: "agent-tool:call-1" });
    expect(route("/approve/agent-tool%3Acall-1/approval-1", "POST")).toEqual({
      kind: "approve",
      runId: "agent-tool:call-1",
      approvalId: "approval-1",
    });
    expect(route("/sub/Researcher/r1")).toEqual({ kind: "drill-in", agentType: "Researcher", runId: "r1" });
    expect(route("/sub/Researcher/r1", "GET", true)).toEqual({
      kind: "drill-in",
      agentType: "Researcher",
      runId: "r1",
    });
    expect(route("/sub/Researcher/r1/token")).toEqual({ kind: "token", agentType: "Researcher", runId: "r1" });
    expect(route("/sub/Researcher/r1/chat", "POST")).toEqual({
      kind: "sub-chat",
      agentType: "Researcher",
      runId: "r1",
    });
    expect(route("/sub/Researcher/r1/messages")).toEqual({
      kind: "sub-messages",
      agentType: "Researcher",
      runId: "r1",
    });
  });

  it("leaves anything else to the host, with its path", () => {
    expect(route("")).toEqual({ kind: "other", path: "/" });
    expect(route("/chat")).toEqual({ kind: "other", path: "/chat" });
    expect(route("/clear")).toEqual({ kind: "other", path: "/clear" });
    expect(route("/chat/stop/turn-1")).toEqual({ kind: "other", path: "/chat/stop/turn-1" });
    expect(route("/hooks")).toEqual({ kind: "other", path: "/hooks" });
    expect(route("/approve/r1/a1")).toEqual({ kind: "other", path: "/approve/r1/a1" });
    expect(route("/approve/r1", "POST")).toEqual({ kind: "other", path: "/approve/r1" });
    expect(route("/sub/Researcher")).toEqual({ kind: "other", path: "/sub/Researcher" });
    expect(route("/sub/Researcher/r1/chat")).toEqual({ kind: "other", path: "/sub/Researcher/r1/chat" });
    expect(route("/sub/Researcher/r1/messages", "POST")).toEqual({
      kind: "other",
      path: "/sub/Researcher/r1/messages",
    });
    expect(route("/%E0%A4%A")).toEqual({ kind: "other", path: "/%E0%A4%A" });
  });

  it("routes Worker requests by parent and name", () => {
    expect(matchAgentToolPath("/agents/assistant/alice/chat")).toEqual({ parent: "assistant", name: "alice" });
    expect(matchAgentToolPath("/agents/assistant/a%20b")).toEqual({ parent: "assistant", name: "a b" });
    expect(matchAgentToolPath("/agents/assistant")).toBeNull();
    expect(matchAgentToolPath("/other/assistant/alice")).toBeNull();
    expect(matchAgentToolPath("/agents/assistant/%E0%A4%A")).toBeNull();
  });
});

describe("run read tokens", () => {
  const claims = { parentId: "parent-1", agentType: "Researcher", runId: "r1", expiresAt: 2_000 };
  const expected = { parentId: "parent-1", agentType: "Researcher", runId: "r1", now: 1_000 };

  it("accepts a token for its parent, run and time", async () => {
    const key = await importRunReadTokenKey("a secret of sixteen+ chars");
    const token = await signRunReadToken(key, claims);
    expect(await verifyRunReadToken(key, token, expected)).toEqual({ ok: true, claims });
  });

  it("refuses every other token, saying why", async () => {
    const key = await importRunReadTokenKey("a secret of sixteen+ chars");
    const token = await signRunReadToken(key, claims);
    const check = (candidate: string | null, at = expected) => verifyRunReadToken(key, candidate, at);
    expect(await check(null)).toEqual({ ok: false, refusal: "missing" });
    expect(await check("v2.a.b")).toEqual({ ok: false, refusal: "malformed" });
    expect(await check(`${token}x`)).toMatchObject({ ok: false });
    expect(await check(token.replace(/\.[^.]+$/, ".AAAA"))).toEqual({ ok: false, refusal: "forged" });
    expect(await check(token, { ...expected, now: 2_000 })).toEqual({ ok: false, refusal: "expired" });
    expect(await check(token, { ...expected, runId: "r2" })).toEqual({ ok: false, refusal: "wrong-run" });
    expect(await check(token, { ...expected, parentId: "parent-2" })).toEqual({ ok: false, refusal: "wrong-run" });
    expect(await check(token, { ...expected, agentType: "Summarizer" })).toEqual({ ok: false, refusal: "wrong-run" });
    const other = await importRunReadTokenKey("another secret, also long");
    expect(await verifyRunReadToken(other, token, expected)).toEqual({ ok: false, refusal: "forged" });
    expect(runReadTokenStatus("wrong-run")).toBe(403);
    expect(runReadTokenStatus("expired")).toBe(401);
  });

  it("carries the run's generation, which only the run's current row matches", async () => {
    const key = await importRunReadTokenKey("a secret of sixteen+ chars");
    const token = await signRunReadToken(key, { ...claims, generation: 1_500 });
    const check = await verifyRunReadToken(key, token, expected);
    expect(check).toEqual({ ok: true, claims: { ...claims, generation: 1_500 } });
    const verified = check.ok ? check.claims : claims;
    expect(isCurrentGeneration(verified, 1_500)).toBe(true);
    expect(isCurrentGeneration(verified, 1_501)).toBe(false);
    // A token signed without one (before generations) matches no run.
    expect(isCurrentGeneration(claims, 1_500)).toBe(false);
    expect(runReadTokenStatus("stale")).toBe(403);
  });

  it("refuses a short secret", () => {
    expect(() => importRunReadTokenKey("short")).toThrow(/16 characters/);
  });
});
