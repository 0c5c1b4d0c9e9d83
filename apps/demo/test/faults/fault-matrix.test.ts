import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { DeliveryLedger } from "@agent-tools/detached";
import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentFrames,
  chatSendRequest,
  demoWsUrl,
  framesOfRun,
  runIdOf,
  startDemoHost,
  voidedSequences,
} from "../harness/demo.js";

// The fault matrix (issue 10): the runtime is stopped (Miniflare disposed, then started again on the same persistence
// folder) at points of a run's life, for an awaited Importer run (the chat's `importData` tool) and a detached one
// (the Assistant's background import, told to the chat with `notify`). Each point is reached by waiting for
// something observable (frames on the events socket, /runs statuses, the child's own state), never by sleeping.
// Heavy (a dozen workerd restarts): run with `FAULTS=1` (see README.md in this folder).

const COMPLETION_SOURCE = "background-import";
const HARD_TERMINAL = ["finished", "error", "aborted"];
const TERMINAL = [...HARD_TERMINAL, "interrupted"];

type Frame = AgentToolEventFrame;
type ChunkBody = { type: string; [key: string]: unknown };
type Drill = { turns: number; resumedTurns: number; run: { status: string } | null };
type RunRow = { runId: string; status: string };
type StoredMessage = { id: string; role: string; metadata?: { source?: string } };
type MatrixRow = {
  run: "awaited" | "detached";
  point: string;
  hit: string;
  final: string;
  sequences: string;
  terminal: string;
  turns: number | string;
  resumedTurns: number | string;
  /** onAgentToolStart / onAgentToolFinish calls for the run (the Assistant's hook journal). */
  hooks: string;
  deliveries: number | string;
  verdict: string;
};
type HookCounts = { runId: string; start: number; finish: Record<string, number> };

const matrix: MatrixRow[] = [];

const bodyOf = (frame: Frame) => (frame.event.kind === "chunk" ? (frame.event.body as ChunkBody) : null);
const startedOf = (messages: unknown[], agentType: string) =>
  agentFrames(messages).find((frame) => frame.event.kind === "started" && frame.event.agentType === agentType);
const hasTerminal = (messages: unknown[], runId: string, kinds = HARD_TERMINAL) =>
  framesOfRun(messages, runId).some((frame) => kinds.includes(frame.event.kind));

/**
 * What a client holds of a run after dedupe: the durable log must be 1..N with no gap and one body per sequence (the
 * sequences a step reset voids count as held: a replay leaves out a step cut by the restart and sends its reset);
 * lifecycle frames must agree per revision, and the highest revision must be exactly one (hard) terminal.
 */
function analyse(seen: Frame[]) {
  const log = new Map<number, string>();
  let conflicts = 0;
  for (const frame of seen) {
    const body = bodyOf(frame);
    if (frame.sequence === undefined || body === null) continue;
    const text = JSON.stringify(body);
    const known = log.get(frame.sequence);
    if (known !== undefined && known !== text) conflicts += 1;
    log.set(frame.sequence, text);
  }
  const sequences = [...new Set([...log.keys(), ...voidedSequences(seen)])].sort((a, b) => a - b);
  const contiguous = sequences.every((sequence, index) => sequence === index + 1);
  const lifecycle = new Map<number, Set<string>>();
  for (const frame of seen) {
    if (frame.revision === undefined) continue;
    const kinds = lifecycle.get(frame.revision) ?? new Set<string>();
    kinds.add(frame.event.kind);
    lifecycle.set(frame.revision, kinds);
  }
  const highest = Math.max(0, ...lifecycle.keys());
  const top = [...(lifecycle.get(highest) ?? [])];
  const revisionConflicts = [...lifecycle.values()].filter((kinds) => kinds.size > 1).length;
  const terminalOk = top.length === 1 && TERMINAL.includes(top[0] as string);
  const lastBody = sequences.length > 0 ? JSON.parse(log.get(sequences.at(-1) as number) as string) : null;
  return {
    contiguous,
    conflicts,
    revisionConflicts,
    count: sequences.length,
    highest,
    top,
    terminalOk,
    endsWithFinish: lastBody?.type === "finish",
    label: `${contiguous ? "1.." : "GAP "}${sequences.at(-1) ?? 0}${conflicts ? ` (${conflicts} conflicting)` : ""}`,
  };
}

/** Importer steps of 5 × 60 ms; a detached run is re-followed at most 300 ms after a restart. */
const BINDINGS = { DEMO_PACE_MS: "60", DETACHED_WATCH_INTERVAL_MS: "300" };

describe.skipIf(process.env["FAULTS"] !== "1")("fault matrix in workerd (FAULTS=1)", () => {
  let persist: PersistDirectory;
  let host: MiniflareHost;
  const wsUrl = (path: string) => demoWsUrl(host, path);
  const base = (chatId: string) => `/agents/assistant/${chatId}`;
  const events = (chatId: string) => RecordingSocket.open(wsUrl(base(chatId)));

  beforeAll(async () => {
    persist = await createPersistDirectory("agent-tools-faults-");
    // Importer steps of 5 × 60 ms; a detached run is re-followed at most 300 ms after a restart.
    host = await startDemoHost(persist, BINDINGS);
  });

  afterAll(async () => {
    if (matrix.length > 0) {
      console.log("\nFault matrix (workerd restarts):");
      console.table(matrix);
      const header =
        "| run | point | hit | final | sequences | terminal | turns | resumed | hooks start/finish | deliveries | verdict |";
      const lines = matrix.map(
        (row) =>
          `| ${row.run} | ${row.point} | ${row.hit} | ${row.final} | ${row.sequences} | ${row.terminal} | ` +
          `${row.turns} | ${row.resumedTurns} | ${row.hooks} | ${row.deliveries} | ${row.verdict} |`,
      );
      console.log([header, "|---|---|---|---|---|---|---|---|---|---|---|", ...lines].join("\n"));
    }
    await host?.dispose();
    await persist?.remove();
  });

  async function runsOf(chatId: string): Promise<RunRow[]> {
    return host.fetchJson<RunRow[]>(`${base(chatId)}/runs`);
  }

  /** Read until `done` holds (at most `attempts` reads, 25 ms apart); the last value read either way. */
  async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 400): Promise<T> {
    let value = await read();
    for (let attempt = 1; attempt < attempts && !done(value); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      value = await read();
    }
    return value;
  }

  async function waitForStatus(chatId: string, runId: string, statuses: string[], attempts = 400) {
    const row = await pollUntil(
      async () => (await runsOf(chatId)).find((run) => run.runId === runId),
      (found) => found !== undefined && statuses.includes(found.status),
      attempts,
    );
    return row?.status ?? "missing";
  }

  type Background = { runId: string; revision: number; delivery: DeliveryLedger };
  const backgroundRun = async (chatId: string, runId: string) =>
    (await host.fetchJson<Background[]>(`${base(chatId)}/background`)).find((run) => run.runId === runId);

  async function drill(chatId: string, runId: string): Promise<Drill | null> {
    const response = await host.fetch(`${base(chatId)}/sub/Importer/${encodeURIComponent(runId)}`);
    if (response.status === 404) return null;
    return (await response.json()) as Drill;
  }

  async function completions(chatId: string): Promise<number> {
    const messages = await host.fetchJson<StoredMessage[]>(`${base(chatId)}/messages`);
    return messages.filter((message) => message.metadata?.source === COMPLETION_SOURCE).length;
  }

  /** Start a chat turn and return the events socket, once the run of `agentType` has been announced. */
  async function start(chatId: string, text: string) {
    const watcher = await events(chatId);
    const chat = await RecordingSocket.open(wsUrl(`${base(chatId)}/chat`));
    chat.send(chatSendRequest(text, chatId, `r-${chatId}`));
    await watcher.waitFor((messages) => startedOf(messages, "Importer") !== undefined);
    const runId = runIdOf(startedOf(watcher.messages, "Importer") as Frame);
    return { watcher, chat, runId };
  }

  /** After the restart: reconnect (replay wakes the parent), wait for a hard terminal, then a fresh full replay. */
  async function collect(chatId: string, runId: string, before: Frame[]) {
    const after = await events(chatId);
    await after.waitFor((messages) => hasTerminal(messages, runId), 30_000).catch(() => undefined);
    const live = framesOfRun(after.messages, runId);
    after.close();
    const replay = await events(chatId);
    await replay.waitFor((messages) => hasTerminal(messages, runId, TERMINAL), 5_000).catch(() => undefined);
    const replayed = framesOfRun(replay.messages, runId);
    replay.close();
    return { seen: [...before, ...live], replayed };
  }

  /** Cut here: close the client's sockets, restart the runtime (with `bindings`, if given), collect what follows. */
  async function restartAndCollect(
    chatId: string,
    started: { watcher: RecordingSocket; chat: RecordingSocket; runId: string },
    bindings?: Record<string, unknown>,
  ) {
    const before = framesOfRun(started.watcher.messages, started.runId);
    started.watcher.close();
    started.chat.close();
    await host.restart(bindings);
    return collect(chatId, started.runId, before);
  }

  async function record(
    run: MatrixRow["run"],
    point: string,
    hit: string,
    chatId: string,
    runId: string,
    seen: Frame[],
    replayed: Frame[],
    options: { detached?: boolean; expectStatus?: string[] } = {},
  ) {
    const status = (await runsOf(chatId)).find((row) => row.runId === runId)?.status ?? "missing";
    const client = analyse(seen);
    const fresh = analyse(replayed);
    const child = await drill(chatId, runId);
    // Wait for the completion message of a detached run (delivered between turns, after the terminal).
    let delivered: number | string = "n/a";
    if (options.detached) {
      delivered = await pollUntil(
        () => completions(chatId),
        (count) => count !== 0,
        200,
      );
    }
    // Hooks are at least once across the crash; a finish hook can follow the terminal by a moment.
    const hooks = await pollUntil(
      async () => (await host.fetchJson<HookCounts[]>(`${base(chatId)}/hooks`)).find((entry) => entry.runId === runId),
      (entry) => (entry?.finish[status] ?? 0) >= 1,
      200,
    );
    const row: MatrixRow = {
      run,
      point,
      hit,
      final: status,
      sequences: `${client.label} / replay ${fresh.label}`,
      terminal: `${client.top.join("+") || "none"}@r${client.highest}`,
      turns: child?.turns ?? "n/a",
      resumedTurns: child?.resumedTurns ?? "n/a",
      hooks: `${hooks?.start ?? 0}/${Object.entries(hooks?.finish ?? {})
        .map(([key, calls]) => `${key}×${calls}`)
        .join("+")}`,
      deliveries: delivered,
      verdict: "",
    };
    matrix.push(row);
    const expectStatus = options.expectStatus ?? ["completed"];
    expect(expectStatus).toContain(status);
    expect(client.contiguous).toBe(true);
    expect(client.conflicts).toBe(0);
    expect(client.revisionConflicts).toBe(0);
    expect(client.terminalOk).toBe(true);
    expect(fresh.contiguous).toBe(true);
    expect(fresh.terminalOk).toBe(true);
    if (status === "completed") {
      expect(client.top).toEqual(["finished"]);
      expect(fresh.endsWithFinish).toBe(true);
      expect(fresh.count).toBe(client.count);
    }
    expect(child?.turns).toBe(1);
    expect(child?.resumedTurns ?? 0).toBeGreaterThanOrEqual(0);
    expect(hooks?.start ?? 0).toBeGreaterThanOrEqual(1);
    expect(hooks?.finish[status] ?? 0).toBeGreaterThanOrEqual(1);
    if (options.detached && status === "completed") expect(delivered).toBe(1);
    row.verdict = "ok";
  }

  // ---------------------------------------------------------------- awaited (the chat's importData tool)

  it("awaited: restart as soon as `started` is seen (child start in flight)", async () => {
    const chatId = "aw-started";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    const hit = watcher.messages.length > 0 && !hasTerminal(watcher.messages, runId) ? "started seen" : "late";
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record("awaited", "on `started` (before/at child start)", hit, chatId, runId, seen, replayed);
  });

  it("awaited: restart before the child has recorded the run (its start held)", async () => {
    // The child's start never answers, so the parent's row stays `starting` with the input kept; the restart turns
    // the hold off and recovery sends the (idempotent) start again.
    await host.restart({ ...BINDINGS, DEMO_HOLD_CHILD_START: "1" });
    const chatId = "aw-before-start";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    const row = await waitForStatus(chatId, runId, ["starting"]);
    const unknownToChild = (await drill(chatId, runId))?.run === null;
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId }, BINDINGS);
    await record(
      "awaited",
      "before the child starts (start in flight)",
      row === "starting" && unknownToChild ? "yes (parent starting, child has no record)" : `missed (${row})`,
      chatId,
      runId,
      seen,
      replayed,
    );
    expect(row).toBe("starting");
    expect(unknownToChild).toBe(true);
  });

  it("awaited: restart after the child started, before its first step's text", async () => {
    const chatId = "aw-before-text";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    // The Importer logs `start` and reports "Checking the schema" at once, then waits a step before any text.
    await watcher.waitFor((messages) =>
      framesOfRun(messages, runId).some((frame) => bodyOf(frame)?.type === "data-agent-progress"),
    );
    const textSeen = framesOfRun(watcher.messages, runId).some((frame) => bodyOf(frame)?.type === "text-delta");
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record(
      "awaited",
      "started, before first text",
      textSeen ? "missed (text seen)" : "yes",
      chatId,
      runId,
      seen,
      replayed,
    );
  });

  it("awaited: restart mid-stream (after the schema-checked milestone)", async () => {
    const chatId = "aw-mid";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    await watcher.waitFor((messages) =>
      framesOfRun(messages, runId).some((frame) => bodyOf(frame)?.type === "data-agent-milestone"),
    );
    const hit = hasTerminal(watcher.messages, runId) ? "late" : "yes";
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record("awaited", "mid-stream (milestone)", hit, chatId, runId, seen, replayed);
  });

  it("awaited: the child reaches its terminal while the parent is down (before the parent records it)", async () => {
    const chatId = "aw-child-done";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    await watcher.waitFor((messages) =>
      framesOfRun(messages, runId).some((frame) => bodyOf(frame)?.type === "data-agent-milestone"),
    );
    const before = framesOfRun(watcher.messages, runId);
    watcher.close();
    chat.close();
    await host.restart();
    // Wake only the child (through its namespace, not the parent) and let it finish on its own.
    const miniflare = host.miniflare;
    const parentId = (await miniflare.getDurableObjectNamespace("ASSISTANT")).idFromName(chatId).toString();
    const importers = await miniflare.getDurableObjectNamespace("IMPORTER");
    const child = importers.get(importers.idFromName(`${parentId}/Importer/${runId}`));
    const readChild = async () =>
      (await (await child.fetch(`http://child/?runId=${encodeURIComponent(runId)}`)).json()) as Drill;
    let state = await readChild();
    for (let attempt = 0; attempt < 400 && state.run?.status === "running"; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      state = await readChild();
    }
    const hit =
      state.run?.status === "completed" ? "yes (child completed, parent row live)" : `child ${state.run?.status}`;
    // The parent's row still says the run is live: it has not recorded the child's terminal.
    const { seen, replayed } = await collect(chatId, runId, before);
    await record("awaited", "child terminal, parent not yet recorded", hit, chatId, runId, seen, replayed);
  });

  it("awaited: restart right after the parent recorded the terminal (finished frame seen)", async () => {
    const chatId = "aw-recorded";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    await watcher.waitFor((messages) => hasTerminal(messages, runId));
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record("awaited", "recorded, before hooks / next model step", "yes", chatId, runId, seen, replayed);
  });

  it("awaited: restart during replay to a client (after its first replayed frame)", async () => {
    const chatId = "aw-replay";
    const { watcher, chat, runId } = await start(chatId, "import the data");
    await watcher.waitFor((messages) => hasTerminal(messages, runId));
    watcher.close();
    chat.close();
    const drillBefore = await drill(chatId, runId);
    // A new client: restart as soon as the replay begins reaching it.
    const replaying = await events(chatId);
    await replaying.waitFor((messages) => messages.length > 0);
    const partial = framesOfRun(replaying.messages, runId);
    const hit = hasTerminal(replaying.messages, runId, TERMINAL) ? "late (whole replay arrived)" : "yes (partial)";
    replaying.close();
    await host.restart();
    const { seen, replayed } = await collect(chatId, runId, partial);
    await record("awaited", "during replay to a client", hit, chatId, runId, seen, replayed);
    // Replaying a finished run does not wake its child into another turn.
    expect(await drill(chatId, runId)).toMatchObject({
      turns: drillBefore?.turns,
      resumedTurns: drillBefore?.resumedTurns,
    });
  });

  // ---------------------------------------------------------------- detached (the background import)

  async function startBackground(chatId: string) {
    return start(chatId, "please import the data in the background");
  }

  it("detached: restart as soon as `started` is seen", async () => {
    const chatId = "bg-started";
    const { watcher, chat, runId } = await startBackground(chatId);
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record("detached", "on `started`", "started seen", chatId, runId, seen, replayed, { detached: true });
  });

  it("detached: restart mid-stream (after a milestone)", async () => {
    const chatId = "bg-mid";
    const { watcher, chat, runId } = await startBackground(chatId);
    await watcher.waitFor((messages) =>
      framesOfRun(messages, runId).some((frame) => bodyOf(frame)?.type === "data-agent-milestone"),
    );
    const hit = hasTerminal(watcher.messages, runId) ? "late" : "yes";
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record("detached", "mid-stream (milestone)", hit, chatId, runId, seen, replayed, { detached: true });
  });

  it("detached: restart right after the terminal is recorded, before/while the completion is delivered", async () => {
    const chatId = "bg-recorded";
    const { watcher, chat, runId } = await startBackground(chatId);
    await watcher.waitFor((messages) => hasTerminal(messages, runId));
    const deliveredBefore = await completions(chatId).catch(() => -1);
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
    await record(
      "detached",
      "recorded, before delivery",
      deliveredBefore === 0 ? "yes (not yet delivered)" : `late (delivered ${deliveredBefore})`,
      chatId,
      runId,
      seen,
      replayed,
      { detached: true },
    );
  });

  it("detached: restart between a delivery's claim and its mark (the delivery held in flight)", async () => {
    // The chat host hangs right after appending the completion (before the model's answer), so the delivery stays
    // claimed and unmarked; the claim holds 500 ms. The restart turns the hold off: the lease runs out and the
    // delivery is retried once, which adds no second message but starts the answer that was lost.
    const lease = { DEMO_DELIVERY_LEASE_MS: "500" };
    await host.restart({ ...BINDINGS, ...lease, DEMO_HOLD_DELIVERIES: "1" });
    const chatId = "bg-claimed";
    const { watcher, chat, runId } = await startBackground(chatId);
    await watcher.waitFor((messages) => hasTerminal(messages, runId));
    const held = await pollUntil(
      () => backgroundRun(chatId, runId),
      (run) => run?.delivery.claim !== undefined,
      200,
    );
    const claimed = held?.delivery.claim !== undefined && (held?.delivery.settledRevision ?? 0) < (held?.revision ?? 0);
    // The completion is in the chat; the model's answer to it is not (the delivery stopped in between).
    expect(await completions(chatId)).toBe(1);
    const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId }, { ...BINDINGS, ...lease });
    await record(
      "detached",
      "between a delivery's claim and its mark",
      claimed ? "yes (claimed, not marked)" : "no claim seen",
      chatId,
      runId,
      seen,
      replayed,
      { detached: true },
    );
    expect(claimed).toBe(true);
    // Wait for the retried delivery to be marked (the lease runs out, then the model answers).
    const after = await pollUntil(
      () => backgroundRun(chatId, runId),
      (run) => run !== undefined && run.delivery.settledRevision === run.revision,
    );
    expect(after?.delivery).toMatchObject({ settledRevision: after?.revision, deliveredStatus: "completed" });
    expect(after?.delivery.claim).toBeUndefined();
    // The retried delivery added no second completion, and the model answered it once.
    const messages = await host.fetchJson<StoredMessage[]>(`${base(chatId)}/messages`);
    const at = messages.findIndex((message) => message.metadata?.source === COMPLETION_SOURCE);
    expect(messages.slice(at).map((message) => message.role)).toEqual(["user", "assistant"]);
    await host.restart(BINDINGS);
  });

  it("detached: restart in the middle of a clear (the child's destroy held)", async () => {
    // The clear cancels the live child, then its destroy never answers, so the parent's rows are not deleted yet.
    // After the restart (hold off) the run must end once, as the child ended it, and a second clear must finish.
    await host.restart({ ...BINDINGS, DEMO_HOLD_CHILD_DESTROY: "1" });
    const chatId = "bg-clear-held";
    const { watcher, chat, runId } = await startBackground(chatId);
    await watcher.waitFor((messages) =>
      framesOfRun(messages, runId).some((frame) => bodyOf(frame)?.type === "data-agent-milestone"),
    );
    const clearing = host.fetch(`${base(chatId)}/clear`, { method: "POST" }).catch(() => null);
    const child = await pollUntil(
      () => drill(chatId, runId),
      (found) => found?.run?.status === "aborted",
      200,
    );
    const held = child?.run?.status === "aborted" && (await runsOf(chatId)).some((row) => row.runId === runId);
    const before = framesOfRun(watcher.messages, runId);
    watcher.close();
    chat.close();
    await host.restart(BINDINGS);
    await clearing;
    const { seen, replayed } = await collect(chatId, runId, before);
    await record(
      "detached",
      "during clear (child cancelled, rows not yet deleted)",
      held ? "yes (child aborted, row kept)" : "missed",
      chatId,
      runId,
      seen,
      replayed,
      { detached: true, expectStatus: ["aborted"] },
    );
    expect(held).toBe(true);
    // The clear, asked again, finishes: no row, no child.
    const cleared = await host.fetchJson<{ runIds: string[] }>(`${base(chatId)}/clear`, { method: "POST" });
    expect(cleared.runIds).toContain(runId);
    expect((await runsOf(chatId)).some((row) => row.runId === runId)).toBe(false);
    expect(await drill(chatId, runId)).toBeNull();
  });

  it("detached: restart while a clear is in flight (racy: the clear's progress is not observable)", async () => {
    const chatId = "bg-clear";
    const { watcher, chat, runId } = await startBackground(chatId);
    await watcher.waitFor((messages) =>
      framesOfRun(messages, runId).some((frame) => bodyOf(frame)?.type === "data-agent-milestone"),
    );
    // Fire the clear and stop the runtime as soon as it is on its way (the response is not awaited).
    const clearing = host.fetch(`${base(chatId)}/clear`, { method: "POST" }).catch(() => null);
    await watcher
      .waitFor((messages) => agentFrames(messages).some((frame) => frame.event.kind === "cleared"), 50)
      .catch(() => undefined);
    const clearedSeen = agentFrames(watcher.messages).some((frame) => frame.event.kind === "cleared");
    const before = framesOfRun(watcher.messages, runId);
    watcher.close();
    chat.close();
    await host.restart();
    await clearing;
    // Either the clear happened (row gone, drill-in refused) or the run is still retained and ends normally.
    const after = await events(chatId);
    await after
      .waitFor(
        (messages) =>
          hasTerminal(messages, runId, TERMINAL) ||
          agentFrames(messages).some((frame) => frame.event.kind === "cleared"),
        3_000,
      )
      .catch(() => undefined);
    after.close();
    const rows = await runsOf(chatId);
    const row = rows.find((candidate) => candidate.runId === runId);
    const child = await drill(chatId, runId);
    const status = row
      ? await waitForStatus(chatId, runId, ["completed", "error", "aborted", "interrupted"])
      : "cleared";
    matrix.push({
      run: "detached",
      point: "during clear",
      hit: clearedSeen ? "late (clear finished)" : "racy (clear in flight)",
      final: status,
      sequences: analyse(before).label,
      terminal: row ? "see final" : "cleared",
      turns: child?.turns ?? "n/a (404)",
      resumedTurns: child?.resumedTurns ?? "n/a (404)",
      hooks: "n/a (cleared)",
      deliveries: await completions(chatId),
      verdict: "",
    });
    if (!row) {
      expect(child).toBeNull();
    } else {
      expect(["completed", "error", "aborted", "interrupted"]).toContain(status);
      expect(child?.turns ?? 1).toBe(1);
    }
    (matrix.at(-1) as MatrixRow).verdict = "ok";
  });
  // ---------------------------------------------------------------- random kill points (exploratory)

  // CRASH_FUZZ=N adds N restarts at seeded random moments of a run's life (CRASH_SEED picks the sequence), awaited
  // and detached in turn, checked like the points above. The delay only picks where to cut; nothing waits on it.
  const fuzzRuns = Number(process.env["CRASH_FUZZ"] ?? 0);
  it.runIf(fuzzRuns > 0)(
    `random restarts (CRASH_FUZZ=${fuzzRuns}, CRASH_SEED=${process.env["CRASH_SEED"] ?? 1})`,
    async () => {
      let seed = Number(process.env["CRASH_SEED"] ?? 1) >>> 0 || 1;
      const random = () => {
        // xorshift32: the same seed, the same kill points.
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 2 ** 32;
      };
      for (let index = 0; index < fuzzRuns; index += 1) {
        const detached = index % 2 === 1;
        const chatId = `fuzz-${index}`;
        const delayMs = Math.floor(random() * 1_600);
        const { watcher, chat, runId } = detached
          ? await startBackground(chatId)
          : await start(chatId, "import the data");
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const hit = hasTerminal(watcher.messages, runId) ? `late (+${delayMs} ms)` : `+${delayMs} ms`;
        const { seen, replayed } = await restartAndCollect(chatId, { watcher, chat, runId });
        await record(detached ? "detached" : "awaited", "random", hit, chatId, runId, seen, replayed, { detached });
      }
    },
  );
});
