// A run-token secret under 16 characters (workerd): every use of a token is answered with a 500 that says what is
// wrong (not a generic crash), an `agent_tool:config:error` event is emitted, and what needs no token works on.

import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-token-secret-");
const MISCONFIGURED = /run token secret .*at least 16 characters/;

type ConfigError = { type: string; setting: string; message: string };

async function withRun() {
  const running = await start({ AGENT_TOOLS_RUN_TOKEN_SECRET: "too-short" });
  const base = "/agents/parent/short";
  const events = await RecordingSocket.open(wsUrl(running, base));
  await running.fetchJson(`${base}/test/start?runId=r1&text=hello`, { method: "POST" });
  await events.waitFor((messages) =>
    (messages as AgentToolEventFrame[]).some(
      (frame) => frame.type === "agent-tool-event" && frame.event.kind === "finished",
    ),
  );
  events.close();
  return { running, base };
}

async function expectMisconfigured(response: { status: number; json(): Promise<unknown> }) {
  expect(response.status).toBe(500);
  const body = (await response.json()) as { error: string; code: string };
  expect(body.code).toBe("CONFIG_ERROR");
  expect(body.error).toMatch(MISCONFIGURED);
}

describe("a run-token secret under 16 characters", () => {
  it("answers signing and drill-ins with a token with a 500 saying what is wrong, and emits a config error", async () => {
    const { running, base } = await withRun();
    // Reported at start-up, before any token is used.
    const atStartUp = await running.fetchJson<ConfigError[]>("/test/config-errors");
    expect(atStartUp.map((error) => error.type)).toEqual(["agent_tool:config:error"]);
    await expectMisconfigured(await running.fetch(`${base}/sub/Echo/r1/token`));
    await expectMisconfigured(await running.fetch(`${base}/sub/Echo/r1?token=v1.a.b`));
    // What needs no token is served.
    expect((await running.fetch(`${base}/sub/Echo/r1`)).status).toBe(200);
    const errors = await running.fetchJson<ConfigError[]>("/test/config-errors");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({
      type: "agent_tool:config:error",
      setting: "AGENT_TOOLS_RUN_TOKEN_SECRET",
      message: expect.stringMatching(MISCONFIGURED),
    });
  });

  it("is answered so in the Worker too, before any object is addressed", async () => {
    const running = await start({ AGENT_TOOLS_RUN_TOKEN_SECRET: "too-short", WORKER_KEY: "worker-key" });
    await expectMisconfigured(await running.fetch("/agents/parent/nobody/sub/Echo/r1?token=v1.a.b"));
    const errors = await running.fetchJson<ConfigError[]>("/test/config-errors");
    expect(errors.map((error) => error.type)).toEqual(["agent_tool:config:error"]);
  });
});
