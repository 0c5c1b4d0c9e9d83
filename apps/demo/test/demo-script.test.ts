import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// `pnpm demo` as a user meets it: a busy port is one line and exit code 1; Ctrl-C (SIGINT to the whole process
// group, as a terminal sends it) stops it with exit code 0 and no pnpm error.

const REPOSITORY_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DEMO_SCRIPT = fileURLToPath(new URL("../scripts/demo.mjs", import.meta.url));
const CHAT_SCRIPT = fileURLToPath(new URL("../scripts/chat.mjs", import.meta.url));

type Finished = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Collect a child's output; `exited` settles when it ends, `waitFor` when its stdout has printed `pattern`. */
function watch(child: ChildProcess) {
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ pattern: RegExp; resolve: (match: RegExpMatchArray) => void }> = [];
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      waiters.push({ pattern, resolve });
      void exited.then((finished) =>
        reject(new Error(`exited (${finished.code ?? finished.signal}) before ${pattern}:\n${stdout}\n${stderr}`)),
      );
    });
  return { exited, waitFor };
}

/** A port nobody listens on now (the OS picks it; released at once). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port something listens on until the test ends. */
async function occupiedPort(): Promise<number> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const address = blocker.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("pnpm demo on a busy port", () => {
  it("prints one line naming the port and PORT, and exits 1 before building anything", async () => {
    const port = await occupiedPort();

    const child = spawn(process.execPath, [DEMO_SCRIPT, "--no-web"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const finished = await watch(child).exited;

    expect(finished.code).toBe(1);
    expect(finished.stdout).toBe("");
    expect(finished.stderr.trimEnd().split("\n")).toEqual([
      `demo: port ${port} is in use on 127.0.0.1: stop the server that holds it, or run with PORT=<another port>`,
    ]);
  });
});

describe("pnpm demo:chat follows PORT", () => {
  it("defaults to 127.0.0.1 and PORT, and its usage explains --url", async () => {
    const child = spawn(process.execPath, [CHAT_SCRIPT, "--help"], {
      env: { ...process.env, PORT: "9123" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const finished = await watch(child).exited;
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain("[--url http://127.0.0.1:9123]");
    expect(finished.stdout).toMatch(/--url: the demo's address/);
  });

  it("says where it looked, and how to point it elsewhere, when the demo is not there", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [CHAT_SCRIPT, "hello"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const finished = await watch(child).exited;
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
    expect(finished.stderr).toContain("--url");
  });
});

// The pnpm that runs these tests (pnpm test sets npm_execpath); without it there is no pnpm to start the demo with.
const pnpmPath = process.env["npm_execpath"];
const hasPnpm = pnpmPath !== undefined && /pnpm/.test(path.basename(pnpmPath));

/** `pnpm demo …` as a user types it: the pnpm that runs these tests, from the repository's root. */
function spawnPnpmDemo(args: string[], env: NodeJS.ProcessEnv, options: { detached?: boolean } = {}) {
  const [command, prefix] = /\.c?js$/.test(pnpmPath ?? "")
    ? [process.execPath, [pnpmPath ?? ""]]
    : [pnpmPath ?? "pnpm", [] as string[]];
  return spawn(command, [...prefix, "demo", ...args], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
}

/** What a script printed, without the two lines pnpm prints before it (`> pkg@ script dir`, `> command`). */
const scriptOutput = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("> "))
    .map((line) => line.trim());

describe.skipIf(!hasPnpm)("pnpm demo on a busy port, through pnpm", () => {
  it("prints the one line, and pnpm adds no failure line of its own", async () => {
    const port = await occupiedPort();

    const finished = await watch(spawnPnpmDemo(["--no-web"], { PORT: String(port) })).exited;

    expect(scriptOutput(`${finished.stdout}\n${finished.stderr}`)).toEqual([
      `demo: port ${port} is in use on 127.0.0.1: stop the server that holds it, or run with PORT=<another port>`,
    ]);
    expect(finished).toMatchObject({ code: 0, signal: null });
  });
});

describe.skipIf(!hasPnpm)("pnpm demo stopped with Ctrl-C", () => {
  it("serves the agents, then ends with exit code 0 and no pnpm error when the terminal's process group gets SIGINT", async () => {
    const port = await freePort();
    const data = await mkdtemp(path.join(tmpdir(), "demo-data-"));
    cleanups.push(() => rm(data, { recursive: true, force: true }));
    // Its own process group, like a job in a terminal: SIGINT to the group reaches pnpm, its shell and the demo.
    const child = spawnPnpmDemo(["--no-web"], { PORT: String(port), DEMO_DATA_DIR: data }, { detached: true });
    const demo = watch(child);
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(-child.pid, "SIGKILL");
      }
    });

    const [, url] = await demo.waitFor(/running at (http:\/\/\S+)/);
    // An Assistant answers (`/` is the page, or with --no-web and no earlier build a hint: either way not this).
    const response = await fetch(new URL("/agents/assistant/demo-script/messages", url));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);

    if (child.pid === undefined) throw new Error("no pid");
    process.kill(-child.pid, "SIGINT");
    const finished = await demo.exited;

    expect(finished).toMatchObject({ code: 0, signal: null });
    expect(finished.stdout).toContain("SIGINT: stopping the demo");
    expect(`${finished.stdout}\n${finished.stderr}`).not.toMatch(/ELIFECYCLE|ERR_PNPM|Command failed/);
  });
});

describe("pnpm demo:chat with a background run", () => {
  it("waits for the run's completion told to the chat, and the Assistant's answer to it, then exits 0", async () => {
    const port = await freePort();
    const data = await mkdtemp(path.join(tmpdir(), "demo-data-"));
    cleanups.push(() => rm(data, { recursive: true, force: true }));
    const env = { ...process.env, PORT: String(port), DEMO_DATA_DIR: data, DEMO_PACE_MS: "2" };
    const demoProcess = spawn(process.execPath, [DEMO_SCRIPT, "--no-web"], { env, stdio: ["ignore", "pipe", "pipe"] });
    const demo = watch(demoProcess);
    cleanups.push(async () => {
      demoProcess.kill("SIGINT");
      await demo.exited;
    });
    await demo.waitFor(/running at (http:\/\/\S+)/);

    const chat = spawn(process.execPath, [CHAT_SCRIPT, "start a background import", "--timeout", "90"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const finished = await watch(chat).exited;

    expect(finished, finished.stderr).toMatchObject({ code: 0, stderr: "" });
    const lines = finished.stdout.split("\n");
    const runFinished = lines.findIndex((line) => /└ \[imp1\] finished: /.test(line));
    const told = lines.findIndex((line) =>
      /^» Background task Background import \(background:\S+\) completed: /.test(line),
    );
    const answer = lines.findIndex((line) =>
      /^Update on your background task: Background task Background import/.test(line),
    );
    expect(
      [runFinished, told, answer].every((index) => index >= 0),
      finished.stdout,
    ).toBe(true);
    expect(runFinished < told && told < answer, finished.stdout).toBe(true);
  }, 120_000);
});

describe("pnpm demo:chat with an approval", () => {
  it("shows who asks for what, answers it with --approve, and exits 0 once the reply says the file was saved", async () => {
    const port = await freePort();
    const data = await mkdtemp(path.join(tmpdir(), "demo-data-"));
    cleanups.push(() => rm(data, { recursive: true, force: true }));
    const env = { ...process.env, PORT: String(port), DEMO_DATA_DIR: data, DEMO_PACE_MS: "2" };
    const demoProcess = spawn(process.execPath, [DEMO_SCRIPT, "--no-web"], { env, stdio: ["ignore", "pipe", "pipe"] });
    const demo = watch(demoProcess);
    cleanups.push(async () => {
      demoProcess.kill("SIGINT");
      await demo.exited;
    });
    await demo.waitFor(/running at (http:\/\/\S+)/);

    const chat = spawn(process.execPath, [CHAT_SCRIPT, "write this down: buy milk", "--approve", "--timeout", "90"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const finished = await watch(chat).exited;

    expect(finished, finished.stderr).toMatchObject({ code: 0, stderr: "" });
    const lines = finished.stdout.split("\n");
    const asked = lines.findIndex((line) => /⏸ approval asked by Writer: saveFile\(.*buy milk/.test(line));
    const approved = lines.findIndex((line) => /✓ approved: saveFile/.test(line));
    const saved = lines.findIndex((line) => /Saved notes\.md \(8 bytes\)/.test(line));
    expect(
      [asked, approved, saved].every((index) => index >= 0),
      finished.stdout,
    ).toBe(true);
    expect(asked < approved && approved < saved, finished.stdout).toBe(true);
  }, 120_000);
});
