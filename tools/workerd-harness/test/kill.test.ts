// `MiniflareHost.kill()`: workerd is stopped as a crash would stop it. The Ledger Durable Object writes a row at once
// and schedules a second write for later; a graceful stop would let the later write land, a kill must not.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { bundleWorker } from "../src/bundle.js";
import { createPersistDirectory, MiniflareHost, type PersistDirectory } from "../src/miniflare-host.js";
import { findWorkerdProcess, isProcessRunning } from "../src/workerd-process.js";
import { RecordingSocket } from "../src/ws-client.js";

const LEDGER_WORKER = fileURLToPath(new URL("./workers/ledger-worker.ts", import.meta.url));
/** The later write's delay: far longer than a kill takes, far shorter than the test's timeout. */
const LATER_MS = 5_000;

let persist: PersistDirectory | undefined;
let host: MiniflareHost | undefined;

async function start(): Promise<MiniflareHost> {
  persist = await createPersistDirectory("agent-tools-kill-");
  host = await MiniflareHost.start({
    scriptPath: await bundleWorker(LEDGER_WORKER),
    durableObjects: { LEDGER: "Ledger" },
    persistDirectory: persist.path,
  });
  return host;
}

afterEach(async () => {
  await host?.dispose();
  await persist?.remove();
  host = undefined;
  persist = undefined;
});

const write = (running: MiniflareHost, name: string, delayMs: number) =>
  running.fetchJson(`/write?name=${name}&row=now&laterRow=later&delayMs=${delayMs}`, { method: "POST" });

describe("MiniflareHost.kill", () => {
  it("lets the later write land when nothing stops the runtime (the control)", async () => {
    const running = await start();
    await write(running, "control", 50);
    expect(await running.fetchJson<string[]>("/wait?name=control&row=later")).toEqual(["now", "later"]);
  });

  it("SIGKILLs workerd: the later write never lands, the socket gets no close frame, and a restart keeps what was committed", async () => {
    const running = await start();
    const pid = running.workerdPid();
    const port = Number(running.url.port);
    const socket = await RecordingSocket.open(`${running.url.toString().replace(/^http/, "ws")}socket?name=cut`);
    // Answered once the first row is durable (the object's output gate holds the response until then).
    await write(running, "cut", LATER_MS);

    const startedAt = performance.now();
    const report = await running.kill();
    const killMs = performance.now() - startedAt;

    expect(report.pid).toBe(pid);
    expect(isProcessRunning(pid)).toBe(false);
    // Miniflare did not start another workerd on its own: nothing serves the port any more.
    expect(() => findWorkerdProcess(port)).toThrow(/No workerd child/);
    // No close frame: the connection just ended.
    expect(await socket.closed()).toBe(1006);
    // Nothing waited for the scheduled write (it would have taken LATER_MS).
    expect(killMs).toBeLessThan(LATER_MS);

    await running.restart();
    expect(running.workerdPid()).not.toBe(pid);
    // The committed row survived; the write scheduled after the cut died with the process.
    expect(await running.fetchJson<string[]>("/rows?name=cut")).toEqual(["now"]);
  });

  it("killAndRestart starts a new workerd on the same folder, with new bindings if given", async () => {
    const running = await start();
    await write(running, "again", LATER_MS);
    const { pid } = await running.killAndRestart();
    expect(running.workerdPid()).not.toBe(pid);
    expect(await running.fetchJson<string[]>("/rows?name=again")).toEqual(["now"]);
    await expect(running.kill()).resolves.toMatchObject({ pid: expect.any(Number) });
    await expect(running.kill()).rejects.toThrow(/killed already/);
  });
});
