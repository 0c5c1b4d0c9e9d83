/**
 * A Worker for the harness's kill test: one Durable Object (`Ledger`, binding `LEDGER`, addressed by `?name=`) that
 * writes a row now and schedules a second write for later, so a test can tell an abrupt stop from a graceful one.
 *
 * - `POST /write?name=&row=&laterRow=&delayMs=`: insert `row` now (answered once it is durable: the output gate
 *   holds the response until then), and insert `laterRow` `delayMs` later (a timer kept alive by `waitUntil`).
 * - `GET /rows?name=`: the rows, in insertion order.
 * - `GET /wait?name=&row=`: answers once `row` is stored.
 * - `GET /socket?name=` (WebSocket): accepted and left open.
 *
 * Written against the few runtime types it uses, so it needs no Workers type package.
 */

type SqlCursor = { toArray(): Array<Record<string, unknown>> };
type LedgerState = {
  storage: { sql: { exec(query: string, ...bindings: unknown[]): SqlCursor } };
  waitUntil(promise: Promise<unknown>): void;
  acceptWebSocket(socket: unknown): void;
};
type Env = {
  LEDGER: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
};
declare const WebSocketPair: new () => Record<0 | 1, unknown>;

export class Ledger {
  readonly #state: LedgerState;
  readonly #waiters = new Map<string, Array<() => void>>();

  constructor(state: LedgerState) {
    this.#state = state;
    state.storage.sql.exec("CREATE TABLE IF NOT EXISTS ledger (position INTEGER PRIMARY KEY, row TEXT NOT NULL)");
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const parameter = (name: string) => url.searchParams.get(name) ?? "";
    switch (url.pathname) {
      case "/write": {
        this.#insert(parameter("row"));
        const later = parameter("laterRow");
        const delayMs = Number(parameter("delayMs"));
        this.#state.waitUntil(
          new Promise<void>((resolve) =>
            setTimeout(() => {
              this.#insert(later);
              resolve();
            }, delayMs),
          ),
        );
        return Response.json({ written: parameter("row"), scheduled: later, delayMs });
      }
      case "/rows":
        return Response.json(this.#rows());
      case "/wait": {
        const row = parameter("row");
        if (!this.#rows().includes(row)) {
          await new Promise<void>((resolve) => this.#waiters.set(row, [...(this.#waiters.get(row) ?? []), resolve]));
        }
        return Response.json(this.#rows());
      }
      case "/socket": {
        const pair = new WebSocketPair();
        this.#state.acceptWebSocket(pair[1]);
        return new Response(null, { status: 101, webSocket: pair[0] } as ResponseInit);
      }
      default:
        return new Response("Not found", { status: 404 });
    }
  }

  #insert(row: string): void {
    this.#state.storage.sql.exec("INSERT INTO ledger (row) VALUES (?)", row);
    for (const resolve of this.#waiters.get(row) ?? []) resolve();
    this.#waiters.delete(row);
  }

  #rows(): string[] {
    return this.#state.storage.sql
      .exec("SELECT row FROM ledger ORDER BY position")
      .toArray()
      .map((record) => String(record["row"]));
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const name = new URL(request.url).searchParams.get("name") ?? "ledger";
    return env.LEDGER.get(env.LEDGER.idFromName(name)).fetch(request);
  },
};
