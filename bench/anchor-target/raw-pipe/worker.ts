/**
 * Target "raw-pipe": the practical limit. A bare Worker + one Durable Object that sends the same frames as
 * agent-tools would (same JSON shape and payload: `started`, C chunk frames, `finished`) over a WebSocket, with no
 * agent-tools logic: no child, no registry, no log. Keep its frames byte-for-byte the shape of ours (compare a
 * one-run replay of both) when the protocol changes. A run is generated in the parent and sent, then stored as one
 * row (its chunk bodies as a JSON array); a new client gets every stored run replayed from those rows. Sockets are
 * plain `accept()`ed ones held in memory. Serves the anchor harness's contract, so the harness can run it too.
 */
import { DurableObject } from "cloudflare:workers";
import { webSocketUpgrade } from "@agent-tools/cloudflare";
import { convertToModelMessages, streamText, toUIMessageStream, type UIMessageChunk } from "ai";
import { collectGarbage } from "../src/collect-garbage.js";
import { scriptedModel, scriptedPrompt } from "../src/scripted-model.js";
import { installSqlMeter, probeStorage, type SqlMeter } from "../src/sql-meter.js";
import { stubChunks, stubSummary } from "../src/stub-chunks.js";

type RawEnv = { RawPipe: DurableObjectNamespace<RawPipe>; RawChild: DurableObjectNamespace<RawChild> };

/**
 * The raw pipe's child, for the fan-out floor: one Durable Object per run (SQLite-backed, as ours), one RPC that
 * records the run in one row and answers its chunks. No runner, no log, no tail.
 */
export class RawChild extends DurableObject<RawEnv> {
  run(runId: string, count: number): unknown[] {
    this.ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS raw_child (run_id TEXT PRIMARY KEY, count INTEGER) WITHOUT ROWID",
    );
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO raw_child (run_id, count) VALUES (?, ?)", runId, count);
    return stubChunks(count);
  }
}

const FRAME_TYPE = "agent-tool-event";
const AGENT_TYPE = "BenchChild";

type StoredRun = {
  run_id: string;
  started_at: number;
  completed_at: number;
  input_preview: string;
  bodies: string;
  display_order: number;
};

export class RawPipe extends DurableObject<RawEnv> {
  readonly meter: SqlMeter;
  readonly #sockets = new Set<WebSocket>();

  constructor(ctx: DurableObjectState, env: RawEnv) {
    super(ctx, env);
    this.meter = installSqlMeter(ctx.storage);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS raw_runs (
        run_id TEXT PRIMARY KEY, started_at INTEGER NOT NULL, completed_at INTEGER NOT NULL,
        display_order INTEGER NOT NULL, input_preview TEXT NOT NULL, bodies TEXT NOT NULL
      ) WITHOUT ROWID`,
    );
  }

  override fetch(request: Request): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    server.accept();
    this.#sockets.add(server);
    const forget = () => this.#sockets.delete(server);
    server.addEventListener("close", forget);
    server.addEventListener("error", forget);
    const started = Date.now();
    let frames = 0;
    const runs = this.ctx.storage.sql.exec<StoredRun>("SELECT * FROM raw_runs ORDER BY started_at, run_id").toArray();
    for (const run of runs) {
      for (const text of runFrames(run, JSON.parse(run.bodies), true)) {
        server.send(text);
        frames += 1;
      }
    }
    server.send(JSON.stringify({ type: "bench-replay-done", runs: runs.length, frames, ms: Date.now() - started }));
    void request;
    return webSocketUpgrade(client);
  }

  #send(text: string): void {
    for (const socket of this.#sockets) {
      try {
        socket.send(text);
      } catch {
        this.#sockets.delete(socket);
      }
    }
  }

  /** One run: generate and send its frames, then keep it (one row) for replay. */
  #run(runId: string, count: number, displayOrder: number, input: Record<string, number>, given?: unknown[]): void {
    const run = newRun(runId, displayOrder, input);
    const bodies = given ?? stubChunks(count, input["deltaChars"] ?? 8);
    for (const text of runFrames(run, bodies, false)) this.#send(text);
    this.#keep(run, bodies);
  }

  /**
   * The floor of a real child (issue 27): the AI SDK's `streamText` + `toUIMessageStream` over the scripted model
   * (the real child's turn) run right here, each chunk sent as a frame as it comes, then the run kept in one row.
   */
  async #streamTextRun(runId: string, count: number, displayOrder: number): Promise<void> {
    const run = newRun(runId, displayOrder, { count });
    const [started] = runFrames(run, [], false);
    if (started) this.#send(started);
    const result = streamText({
      model: scriptedModel(),
      messages: await convertToModelMessages([
        { role: "user", parts: [{ type: "text", text: scriptedPrompt(count) }] },
      ]),
    });
    const bodies: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream({ stream: result.stream }) as AsyncIterable<UIMessageChunk>) {
      bodies.push(chunk);
      this.#send(chunkFrame(runId, bodies.length, chunk, false));
    }
    this.#send(finishedFrame(run, bodies.length, false));
    this.#keep(run, bodies);
  }

  #keep(run: StoredRun, bodies: unknown[]): void {
    run.bodies = JSON.stringify(bodies);
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO raw_runs (run_id, started_at, completed_at, display_order, input_preview, bodies) VALUES (?, ?, ?, ?, ?, ?)",
      run.run_id,
      run.started_at,
      run.completed_at,
      run.display_order,
      run.input_preview,
      run.bodies,
    );
  }

  benchPing(): { now: number } {
    return { now: Date.now() };
  }

  /** `mode`: `stub` (the stub's chunks, made here) or `streamText` (the real child's turn, run here). */
  async benchRun(
    runId: string,
    count: number,
    deltaChars: number,
    mode: RunMode = "stub",
  ): Promise<{ ms: number; status: string }> {
    const started = Date.now();
    if (mode === "streamText") await this.#streamTextRun(runId, count, 0);
    else this.#run(runId, count, 0, { count, deltaChars });
    return { ms: Date.now() - started, status: "completed" };
  }

  /**
   * `runs` runs at once. `mode`: `stub` (made here, one after another), `streamText` (concurrent `streamText`
   * turns, as concurrent real children), or `children` (the fan-out floor: each run's chunks come from its own new
   * `RawChild` object, one RPC each, all at once; then its frames go out and its row is kept).
   */
  async benchFanOut(
    prefix: string,
    runs: number,
    count: number,
    mode: RunMode = "stub",
  ): Promise<{ ms: number; statuses: Record<string, number>; errors: string[] }> {
    const started = Date.now();
    const ids = Array.from({ length: runs }, (_, index) => `${prefix}-${index}`);
    if (mode === "streamText") {
      await Promise.all(ids.map((runId, index) => this.#streamTextRun(runId, count, index)));
    } else if (mode === "children") {
      await Promise.all(
        ids.map(async (runId, index) => {
          const child = this.env.RawChild.get(this.env.RawChild.idFromName(`${this.ctx.id}/${runId}`));
          const bodies = await child.run(runId, count);
          this.#run(runId, count, index, { count }, bodies);
        }),
      );
    } else {
      for (const [index, runId] of ids.entries()) this.#run(runId, count, index, { count });
    }
    return { ms: Date.now() - started, statuses: { completed: runs }, errors: [] };
  }

  benchStorage(runId: string, count: number, growthRuns: number): Record<string, unknown> {
    this.#run(`${runId}-warm`, 3, 0, { count: 3 });
    const sizeBefore = this.ctx.storage.sql.databaseSize;
    this.meter.reset();
    this.#run(runId, count, 0, { count });
    const reading = this.meter.read();
    const sizeAfter = this.ctx.storage.sql.databaseSize;
    const growthBefore = this.ctx.storage.sql.databaseSize;
    this.meter.reset();
    for (let index = 0; index < growthRuns; index += 1) this.#run(`${runId}-growth-${index}`, count, 0, { count });
    const growth = this.meter.read();
    const growthAfter = this.ctx.storage.sql.databaseSize;
    const none = { rowsWritten: 0, rowsRead: 0, statements: 0, databaseSize: 0, tableRows: {} };
    return {
      status: "completed",
      parent: {
        rowsWritten: reading.rowsWritten,
        rowsRead: reading.rowsRead,
        statements: reading.statements,
        meterInstalled: this.meter.installed,
        databaseSizeBefore: sizeBefore,
        databaseSizeAfter: sizeAfter,
        databaseSizeDelta: sizeAfter - sizeBefore,
        growthRuns,
        growthBytesPerRun: growthRuns > 0 ? (growthAfter - growthBefore) / growthRuns : null,
        growthRowsWrittenPerRun: growthRuns > 0 ? growth.rowsWritten / growthRuns : null,
        tableRows: probeStorage(this.ctx.storage, this.meter).tableRows,
        writers: reading.writers,
      },
      child: none,
      childEmpty: none,
    };
  }

  benchStats(): Record<string, unknown> {
    return { childrenWoken: 0, childCalls: {}, sockets: this.#sockets.size };
  }
}

type RunMode = "stub" | "streamText" | "children";

function newRun(runId: string, displayOrder: number, input: Record<string, number>): StoredRun {
  const now = Date.now();
  return {
    run_id: runId,
    started_at: now,
    completed_at: now,
    display_order: displayOrder,
    input_preview: JSON.stringify(input),
    bodies: "",
  };
}

function chunkFrame(runId: string, sequence: number, body: unknown, replay: boolean): string {
  const flag = replay ? { replay: true } : {};
  return JSON.stringify({ type: FRAME_TYPE, sequence, ...flag, event: { kind: "chunk", runId, body } });
}

function finishedFrame(run: StoredRun, count: number, replay: boolean): string {
  const flag = replay ? { replay: true } : {};
  return JSON.stringify({
    type: FRAME_TYPE,
    revision: 3,
    ...flag,
    event: { kind: "finished", runId: run.run_id, summary: stubSummary(count), completedAt: run.completed_at },
  });
}

/** The frames of one run, encoded: the same shapes agent-tools sends (`started`, `chunk` with a sequence, `finished`). */
function runFrames(run: StoredRun, bodies: unknown[], replay: boolean): string[] {
  const flag = replay ? { replay: true } : {};
  const runId = run.run_id;
  const texts = [
    JSON.stringify({
      type: FRAME_TYPE,
      revision: 1,
      ...flag,
      event: {
        kind: "started",
        runId,
        agentType: AGENT_TYPE,
        displayOrder: run.display_order,
        startedAt: run.started_at,
        inputPreview: run.input_preview,
      },
    }),
  ];
  bodies.forEach((body, index) => {
    texts.push(chunkFrame(runId, index + 1, body, replay));
  });
  texts.push(finishedFrame(run, bodies.length, replay));
  return texts;
}

function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  const value = raw === null ? Number.NaN : Number(raw);
  return Number.isFinite(value) ? value : fallback;
}

// biome-ignore lint/style/noDefaultExport: a Worker's entry is its default export.
export default {
  async fetch(request: Request, env: RawEnv): Promise<Response> {
    const url = new URL(request.url);
    const socket = /^\/raw\/([^/]+)$/.exec(url.pathname);
    const name = socket?.[1] ? decodeURIComponent(socket[1]) : (url.searchParams.get("parent") ?? "bench");
    const parent = env.RawPipe.get(env.RawPipe.idFromName(name));
    if (socket) return parent.fetch(request);
    const text = (key: string, fallback: string) => url.searchParams.get(key) ?? fallback;
    switch (url.pathname) {
      case "/bench/ping":
        return Response.json(await parent.benchPing());
      case "/bench/run":
        return Response.json(
          await parent.benchRun(
            text("runId", crypto.randomUUID()),
            intParam(url, "count", 10),
            intParam(url, "deltaChars", 8),
            text("mode", "stub") as RunMode,
          ),
        );
      case "/bench/fanout":
        return Response.json(
          await parent.benchFanOut(
            text("prefix", "fan"),
            intParam(url, "runs", 20),
            intParam(url, "count", 50),
            text("mode", "stub") as RunMode,
          ),
        );
      case "/bench/storage":
        return Response.json(
          await parent.benchStorage(
            text("runId", "storage-run"),
            intParam(url, "count", 100),
            intParam(url, "growthRuns", 0),
          ),
        );
      case "/bench/stats":
        return Response.json(await parent.benchStats());
      case "/bench/gc":
        return Response.json(await collectGarbage());
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
