// Test support: a parent's registry over in-memory ports, its MCP endpoint, and the SDK's own client talking to it
// through an in-process fetch.
import {
  type AgentToolChildDefinition,
  type AgentToolEventFrame,
  AgentToolRegistry,
  type AgentToolTailItem,
  type ChildStartOptions,
  type RunStore,
  type StartTailOptions,
  type TailOptions,
} from "@agent-tools/core-runs";
import type { ChildRef } from "@agent-tools/core-runs/internal";
import { InMemoryRunStore, InProcessChildTransport, ManualClock } from "@agent-tools/core-runs/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpAgentTool } from "./mcp-session.js";
import { McpTaskEndpoint } from "./mcp-task-endpoint.js";

export const MCP_URL = new URL("https://parent.test/mcp");

/** One incarnation of a parent: its registry (over `store` and `transport`, which outlive it) and its MCP endpoint. */
export function parentWithMcp(
  tools: Record<string, McpAgentTool>,
  ports: { store: RunStore; transport: InProcessChildTransport; clock: ManualClock },
) {
  const frames: AgentToolEventFrame[] = [];
  let endpoint: McpTaskEndpoint | undefined;
  const registry = new AgentToolRegistry({
    ...ports,
    broadcast: (frame) => {
      frames.push(frame);
      endpoint?.observe(frame);
    },
  });
  let next = 0;
  endpoint = new McpTaskEndpoint({ registry, tools, pollIntervalMs: 5, generateTaskId: () => `task-${++next}` });
  const fetch = (url: string | URL, init?: RequestInit) => endpoint.handle(new Request(url, init));
  return { registry, endpoint, frames, fetch };
}

/**
 * In-process children whose tails attach only once `attach()` is called: the parent's tail reaches a busy child late,
 * after the run has reported things, and starts from the run's latest progress (its catch-up snapshot).
 */
export class LateTails extends InProcessChildTransport {
  #attach: () => void = () => undefined;
  readonly #attached = new Promise<void>((resolve) => {
    this.#attach = resolve;
  });

  attach(): void {
    this.#attach();
  }

  /** The run starts at once; its tail (from the first entry) attaches with the others, on `attach()`. */
  override async startTail(ref: ChildRef, input: unknown, options: ChildStartOptions, tail: StartTailOptions) {
    await this.start(ref, input, options);
    return this.tail(ref, { ...tail, afterSequence: 0 });
  }

  override tail(ref: ChildRef, options: TailOptions): ReadableStream<AgentToolTailItem> {
    const reader = this.#attached.then(() => super.tail(ref, options).getReader());
    return new ReadableStream<AgentToolTailItem>({
      async pull(controller) {
        const { done, value } = await (await reader).read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        await (await reader).cancel(reason);
      },
    });
  }
}

/** In-memory ports for `parentWithMcp` (children in this process, kept across incarnations of the parent). */
export function inMemoryPorts(children: AgentToolChildDefinition[]) {
  const clock = new ManualClock(1_767_225_600_000);
  return { store: new InMemoryRunStore(), transport: new InProcessChildTransport({ children, clock }), clock };
}

/** `inMemoryPorts` whose transport's tails wait for `transport.attach()` (see `LateTails`). */
export function lateTailPorts(children: AgentToolChildDefinition[]) {
  const ports = inMemoryPorts(children);
  return { ...ports, transport: new LateTails({ children, clock: ports.clock }) };
}

/** The SDK's client, connected through `fetch` (it may answer elicitations: `elicitation.form`). */
export async function connectClient(fetch: (url: string | URL, init?: RequestInit) => Promise<Response>) {
  const client = new Client(
    { name: "test-client", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} }, tasks: { list: {}, cancel: {} } } },
  );
  await client.connect(new StreamableHTTPClientTransport(MCP_URL, { fetch }));
  return client;
}
