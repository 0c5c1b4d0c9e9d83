// A run read token is bound to its run's generation (workerd): after `/clear`, a run started again with the same id
// is another run, and the old token does not open it.

import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-token-generation-");
const base = "/agents/parent/generations";

const finishedCount = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter(
    (frame) => frame.type === "agent-tool-event" && frame.event.kind === "finished",
  ).length;

describe("run read tokens and /clear", () => {
  it("a token of a cleared run does not open the run started again with its id", async () => {
    const running = await start({ AGENT_TOOLS_RUN_TOKEN_SECRET: "test-secret-of-at-least-16-characters" });
    const events = await RecordingSocket.open(wsUrl(running, base));
    await running.fetchJson(`${base}/test/start?runId=r1&text=first`, { method: "POST" });
    await events.waitFor((messages) => finishedCount(messages) === 1);
    const { token: old } = await running.fetchJson<{ token: string }>(`${base}/sub/Echo/r1/token`);
    expect((await running.fetch(`${base}/sub/Echo/r1?token=${old}`)).status).toBe(200);

    await running.fetchJson(`${base}/clear`, { method: "POST" });
    // A cleared run: the token opens nothing (no such run).
    expect((await running.fetch(`${base}/sub/Echo/r1?token=${old}`)).status).toBe(404);
    await running.fetchJson(`${base}/test/start?runId=r1&text=second`, { method: "POST" });
    await events.waitFor((messages) => finishedCount(messages) === 2);
    events.close();

    const refused = await running.fetch(`${base}/sub/Echo/r1?token=${old}`);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe("Run read token refused (stale)");
    expect((await running.fetch(`${base}/sub/Echo/r1/messages?token=${old}`)).status).toBe(403);
    const { token: fresh } = await running.fetchJson<{ token: string }>(`${base}/sub/Echo/r1/token`);
    expect((await running.fetch(`${base}/sub/Echo/r1?token=${fresh}`)).status).toBe(200);
  });
});
