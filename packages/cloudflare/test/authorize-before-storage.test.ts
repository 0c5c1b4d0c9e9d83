// Refused requests create no storage (workerd): `routeAgentToolRequest`'s `authorize` refuses in the Worker, before
// any object exists, and verifies run read tokens itself (a valid one goes through without the app's hook); a request
// the parent's own `authorize` refuses leaves its object without a table.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { importRunReadTokenKey, signRunReadToken } from "../src/auth/run-read-token.js";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const SECRET = "test-secret-of-at-least-16-characters";
const KEY = "parent-key";
const WORKER_KEY = "worker-key";

type RunInfo = { runId: string; startedAt: number };

const start = hostWorkerPerTest("agent-tools-authorize-");
const names = Array.from({ length: 20 }, (_, index) => `stranger-${index}`);

/** The Parent objects with a storage file in the persistence folder (Miniflare's `<id>.sqlite`, one per object). */
async function parentObjectFiles(): Promise<string[]> {
  const root = start.persistPath();
  const folders = (await readdir(root)).filter((folder) => folder.endsWith("-Parent"));
  const files = await Promise.all(folders.map((folder) => readdir(join(root, folder))));
  return files.flat().filter((file) => /^[0-9a-f]{64}\.sqlite$/.test(file));
}

async function refuseAll(running: MiniflareHost, headers: Record<string, string> = {}) {
  for (const name of names) {
    const base = `/agents/parent/${name}`;
    for (const path of ["/runs", "/messages", "/sub/Echo/guessed", "/test/hooks"]) {
      expect((await running.fetch(`${base}${path}`, { headers })).status, `${name}${path}`).toBe(401);
    }
    expect((await running.fetch(`${base}/cancel/r1`, { method: "POST", headers })).status).toBe(401);
    await expect(RecordingSocket.open(wsUrl(running, `${base}/chat`))).rejects.toThrow(/401/);
  }
}

describe("authorization before storage", () => {
  it("20 requests refused by the parent's authorize leave their objects without a table", async () => {
    const running = await start({ PARENT_KEY: KEY, AGENT_TOOLS_RUN_TOKEN_SECRET: SECRET });
    await refuseAll(running);
    for (const name of names) expect(await running.fetchJson(`/test/tables?name=${name}`), name).toEqual([]);
    // An authorized request then works as usual, and stores.
    const base = `/agents/parent/${names[0]}`;
    const answer = await running.fetchJson<{ parts: unknown[] }>(`${base}/test/send?text=hi`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(answer.parts.length).toBeGreaterThan(0);
    expect(await running.fetchJson<string[]>(`/test/tables?name=${names[0]}`)).not.toEqual([]);
  });

  it("20 requests refused by the Worker's authorize create no object at all", async () => {
    const running = await start({ WORKER_KEY, AGENT_TOOLS_RUN_TOKEN_SECRET: SECRET });
    await refuseAll(running);
    expect(await parentObjectFiles()).toEqual([]);
  });
});

describe("run read tokens in the Worker", () => {
  async function withRun() {
    const running = await start({ WORKER_KEY, PARENT_KEY: KEY, AGENT_TOOLS_RUN_TOKEN_SECRET: SECRET });
    const base = "/agents/parent/owner";
    const headers = { "x-worker-key": WORKER_KEY, authorization: `Bearer ${KEY}` };
    await running.fetchJson(`${base}/test/send?text=secret`, { method: "POST", headers });
    const [run] = await running.fetchJson<RunInfo[]>(`${base}/runs`, { headers });
    const path = `${base}/sub/Echo/${encodeURIComponent(run?.runId ?? "")}`;
    const { token } = await running.fetchJson<{ token: string }>(`${path}/token`, { headers });
    return { running, path, token };
  }

  it("lets a valid token drill in without the Worker's or the parent's key", async () => {
    const { running, path, token } = await withRun();
    const response = await running.fetch(`${path}?token=${token}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { messages: unknown[] }).messages).toHaveLength(2);
    expect((await running.fetch(`${path}/messages?token=${token}`)).status).toBe(200);
    // Reading, not talking: the Worker's hook decides a chat message to the child.
    const talk = await running.fetch(`${path}/chat?token=${token}`, { method: "POST", body: '{"message":"hi"}' });
    expect(talk.status).toBe(401);
    expect(await talk.text()).toBe("Refused by the Worker");
  });

  it("refuses a bad token in the Worker, creating no object", async () => {
    const { running, token } = await withRun();
    const [version, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { p: string };
    const key = await importRunReadTokenKey(SECRET);
    const before = (await parentObjectFiles()).length;
    // A token for a run of a parent that does not exist yet: signed right, for another parent's id.
    const foreign = await signRunReadToken(key, {
      parentId: claims.p,
      agentType: "Echo",
      runId: "r1",
      expiresAt: Date.now() + 60_000,
    });
    const flipped = `${version}.${payload}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    const cases: Array<[string, string, number]> = [
      ["forged", `/agents/parent/nobody/sub/Echo/r1?token=${encodeURIComponent(flipped)}`, 401],
      ["malformed", "/agents/parent/nobody/sub/Echo/r1?token=nope", 401],
      ["another parent's", `/agents/parent/nobody/sub/Echo/r1?token=${encodeURIComponent(foreign)}`, 403],
    ];
    for (const [label, path, status] of cases) {
      const response = await running.fetch(path);
      expect(response.status, label).toBe(status);
      expect(await response.text(), label).toMatch(/^Run read token refused/);
    }
    expect((await parentObjectFiles()).length).toBe(before);
  });
});
