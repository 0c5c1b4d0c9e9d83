/**
 * OpenTelemetry for the test Worker (`OTEL=1`): the OpenTelemetry SDK's tracer, `@agent-tools/observability`'s
 * exporter on this isolate's run events, a context manager that follows awaits (for the AI SDK's spans), and a span
 * log: every finished span is recorded by the `SpanLog` object (binding `SPANS`), so spans ended before a kill of
 * workerd are still there after it (`GET /test/spans`).
 */

import { DurableObject } from "cloudflare:workers";
import type { AgentToolTraceContext } from "@agent-tools/core-runs/protocol";
import { createOpenTelemetryExporter, createRunSpanIds, parseTraceparent } from "@agent-tools/observability";
import { type Context, type ContextManager, context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";

/** A finished span as the span log keeps it. */
export type LoggedSpan = {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  attributes: Record<string, unknown>;
  links: string[];
  status: number;
  /** Epoch ms. */
  startTime: number;
  endTime: number;
};

const epochMs = ([seconds, nanos]: [number, number]) => seconds * 1_000 + Math.round(nanos / 1e6);

type Storage<T> = { getStore(): T | undefined; run<R>(value: T, fn: () => R): R };
// workerd's AsyncLocalStorage (`nodejs_compat`), found as the package finds it (no Node types here). In Node the tests
// use `@opentelemetry/context-async-hooks`; its only build is CommonJS, whose `require("async_hooks")` the test bundle
// cannot load in workerd, hence this small manager of our own.
const { AsyncLocalStorage } = (
  globalThis as unknown as { process: { getBuiltinModule(id: string): unknown } }
).process.getBuiltinModule("node:async_hooks") as { AsyncLocalStorage: new <T>() => Storage<T> };

class AlsContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    value: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(value, () => fn.call(thisArg, ...args));
  }
  bind<T>(_context: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    return this;
  }
}

let spanLog: DurableObjectNamespace | undefined;

/** Record this isolate's finished spans in `namespace`'s span log from now on. */
export function enableSpanLog(namespace: DurableObjectNamespace): void {
  spanLog = namespace;
}

const toLogged = (span: ReadableSpan): LoggedSpan => ({
  name: span.name,
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  parentSpanId: span.parentSpanContext?.spanId ?? null,
  attributes: { ...span.attributes },
  links: span.links.map((link) => link.context.spanId),
  status: span.status.code,
  startTime: epochMs(span.startTime),
  endTime: epochMs(span.endTime),
});

const logExporter: SpanExporter = {
  export(spans, done) {
    const log = spanLog;
    if (!log) return done({ code: 0 });
    const stub = log.get(log.idFromName("spans"));
    const body = JSON.stringify(spans.map(toLogged));
    stub.fetch("https://spans/record", { method: "POST", body }).then(
      () => done({ code: 0 }),
      () => done({ code: 1 }),
    );
  },
  shutdown: async () => {},
};

context.setGlobalContextManager(new AlsContextManager());
// The exporter picks the ids of the spans it re-creates after a restart: the provider generates ids through it.
const ids = createRunSpanIds();
const provider = new BasicTracerProvider({ idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(logExporter)] });
export const tracer = provider.getTracer("agent-tools-test");
export const exporter = createOpenTelemetryExporter({ tracer, ids });

/** Run `fn` in the OpenTelemetry context a run's trace context names (the AI SDK's spans then nest under it). */
export function inRunTrace<T>(runTrace: AgentToolTraceContext | null, fn: () => T): T {
  const parent = runTrace ? parseTraceparent(runTrace.traceparent) : undefined;
  return parent ? context.with(trace.setSpanContext(context.active(), parent), fn) : fn();
}

/** The span log: `POST /record` appends spans, `GET /list` answers them all. */
export class SpanLog extends DurableObject {
  override async fetch(request: Request): Promise<Response> {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS spans (id INTEGER PRIMARY KEY AUTOINCREMENT, span TEXT NOT NULL)");
    if (new URL(request.url).pathname === "/record") {
      for (const span of (await request.json()) as LoggedSpan[])
        sql.exec("INSERT INTO spans (span) VALUES (?)", JSON.stringify(span));
      return Response.json({ ok: true });
    }
    return Response.json(
      sql
        .exec("SELECT span FROM spans ORDER BY id")
        .toArray()
        .map((row) => JSON.parse(String(row["span"]))),
    );
  }
}
