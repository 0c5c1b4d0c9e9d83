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
import { installSqlMeter, probeStorage, type SqlMeter } from "../src/sql-meter.js";
import { stubChunks, stubSummary } from "../src/stub-chunks.js";

type RawEnv = { RawPipe: DurableObjectNamespace<RawPipe> };

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
  #run(runId: string, count: number, displayOrder: number, input: Record<string, number>): void {
    const run: StoredRun = {
      run_id: runId,
      started_at: Date.now(),
      completed_at: Date.now(),
      display_order: displayOrder,
      input_preview: JSON.stringify(input),
      bodies: "",
    };
    const bodies = stubChunks(count, input["deltaChars"] ?? 8);
    for (const text of runFrames(run, bodies, false)) this.#send(text);
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

  benchRun(runId: string, count: number, deltaChars: number): { ms: number; status: string } {
    const started = Date.now();
    this.#run(runId, count, 0, { count, deltaChars });
    return { ms: Date.now() - started, status: "completed" };
  }

  benchFanOut(
    prefix: string,
    runs: number,
    count: number,
  ): { ms: number; statuses: Record<string, number>; errors: string[] } {
    const started = Date.now();
    for (let index = 0; index < runs; index += 1) this.#run(`${prefix}-${index}`, count, index, { count });
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
    texts.push(
      JSON.stringify({ type: FRAME_TYPE, sequence: index + 1, ...flag, event: { kind: "chunk", runId, body } }),
    );
  });
  texts.push(
    JSON.stringify({
      type: FRAME_TYPE,
      revision: 3,
      ...flag,
      event: { kind: "finished", runId, summary: stubSummary(bodies.length), completedAt: run.completed_at },
    }),
  );
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
          ),
        );
      case "/bench/fanout":
        return Response.json(
          await parent.benchFanOut(text("prefix", "fan"), intParam(url, "runs", 20), intParam(url, "count", 50)),
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
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
