import type { AgentToolEventFrame, AgentToolRegistry } from "@agent-tools/core-runs";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type McpAgentTool, McpSession } from "./mcp-session.js";
import { RunTasks } from "./run-tasks.js";

/** A live task's suggested polling interval, by default (1 s). */
export const DEFAULT_MCP_POLL_INTERVAL_MS = 1_000;
/** How long an approval's elicitation waits for its answer before it is withdrawn and asked again (5 min). */
export const DEFAULT_MCP_ELICITATION_TIMEOUT_MS = 5 * 60_000;
/** How many MCP sessions an endpoint keeps at once; a new one closes the oldest (100). */
export const DEFAULT_MCP_MAX_SESSIONS = 100;

export type McpTaskEndpointOptions = {
  /** The parent's run registry: every task is one of its runs. */
  registry: AgentToolRegistry;
  /** The tools to serve, by MCP tool name. */
  tools: Readonly<Record<string, McpAgentTool>>;
  /** What the server tells clients it is (default `{ name: "agent-tools", version: "1.0.0" }`). */
  serverInfo?: { name: string; version: string };
  pollIntervalMs?: number;
  elicitationTimeoutMs?: number;
  maxSessions?: number;
  /** A new task's id (its run's id). Default: `crypto.randomUUID()`. */
  generateTaskId?: () => string;
};

type Session = { mcp: McpSession; transport: WebStandardStreamableHTTPServerTransport };

/**
 * A parent's agent tools as an MCP server on one Streamable HTTP endpoint (the official SDK's server and transport,
 * protocol 2025-11-25 with tasks): `handle` answers each HTTP request of it. A call of a tool returns a task at once
 * (its id is a run id); `tasks/get`, `tasks/list` and `tasks/result` read the parent's runs, so they survive whatever
 * the runs survive (a restart too: a client whose session is gone, answered 404, initializes again and goes on by task
 * id); `tasks/cancel` cancels the run's tree; an approval the run's tree waits for makes the task `input_required` and
 * is asked of the client that calls `tasks/result`, as an elicitation. Feed it the parent's frames (`observe`) and it
 * sends the client that created a task its progress and status as notifications.
 *
 * Sessions live in memory; authorization is the host's, before `handle`.
 *
 * @experimental New API: it may change without a major version.
 */
export class McpTaskEndpoint {
  readonly #tasks: RunTasks;
  readonly #options: McpTaskEndpointOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #pollIntervalMs: number;

  constructor(options: McpTaskEndpointOptions) {
    this.#options = options;
    this.#pollIntervalMs = options.pollIntervalMs ?? DEFAULT_MCP_POLL_INTERVAL_MS;
    this.#tasks = new RunTasks({
      registry: options.registry,
      pollIntervalMs: this.#pollIntervalMs,
      ...(options.generateTaskId ? { generateTaskId: options.generateTaskId } : {}),
    });
  }

  /** How many sessions are open. */
  get sessions(): number {
    return this.#sessions.size;
  }

  /** Answer one HTTP request of the endpoint (`POST`, `GET` for the client's stream, `DELETE` to end a session). */
  async handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (!session) return sessionNotFound();
      return session.transport.handleRequest(request);
    }
    // No session yet: only an `initialize` opens one (the transport refuses anything else).
    const session = await this.#open();
    const response = await session.transport.handleRequest(request);
    if (session.transport.sessionId === undefined) await session.mcp.server.close();
    return response;
  }

  /** A frame of the parent's runs: progress and status of the tasks a connected client created reach it. */
  observe(frame: AgentToolEventFrame): void {
    const changed = this.#tasks.observe(frame);
    const { event } = frame;
    if (event.kind === "cleared") return;
    const owners = [...this.#sessions.values()].filter((session) => session.mcp.owns(event.runId));
    if (owners.length === 0) return;
    if (event.kind === "chunk") for (const { mcp } of owners) mcp.progress(event.runId, event.body, frame.sequence);
    if (!changed) return;
    void this.#tasks.task(event.runId).then((task) => {
      if (task) for (const { mcp } of owners) mcp.status(task);
    });
  }

  /** Close every session (their streams end). */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.mcp.server.close()));
  }

  async #open(): Promise<Session> {
    const mcp = new McpSession({
      tasks: this.#tasks,
      tools: this.#options.tools,
      serverInfo: this.#options.serverInfo ?? { name: "agent-tools", version: "1.0.0" },
      pollIntervalMs: this.#pollIntervalMs,
      elicitationTimeoutMs: this.#options.elicitationTimeoutMs ?? DEFAULT_MCP_ELICITATION_TIMEOUT_MS,
    });
    const session: Session = {
      mcp,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => this.#admit(id, session),
        onsessionclosed: (id) => {
          this.#sessions.delete(id);
        },
      }),
    };
    await mcp.server.connect(session.transport);
    return session;
  }

  #admit(id: string, session: Session): void {
    this.#sessions.set(id, session);
    const max = this.#options.maxSessions ?? DEFAULT_MCP_MAX_SESSIONS;
    for (const [oldest, closing] of this.#sessions) {
      if (this.#sessions.size <= max) break;
      this.#sessions.delete(oldest);
      void closing.mcp.server.close();
    }
  }
}

/** What the SDK's transport answers for a session it does not know: 404, so the client initializes again. */
function sessionNotFound(): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
    { status: 404 },
  );
}

/**
 * A parent's agent tools as an MCP server with tasks (see `McpTaskEndpoint`).
 *
 * @experimental New API: it may change without a major version.
 */
export function createMcpTaskEndpoint(options: McpTaskEndpointOptions): McpTaskEndpoint {
  return new McpTaskEndpoint(options);
}
