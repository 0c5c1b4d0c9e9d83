import type { AgentToolChildDefinition } from "../child/child-definition.js";
import { createRunEventHub } from "../events/run-event-hub.js";
import type { Clock } from "../ports/clock.js";
import type { AgentToolEventFrame } from "../protocol/index.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { InProcessChildTransport } from "../testing/in-process-child-transport.js";
import type { AgentToolRegistryOptions } from "./registry-options.js";
import { AgentToolRegistry } from "./run-registry.js";

/** A registry over in-memory ports and `children`, with its own event hub, and the frames it broadcast. */
export function inMemoryRegistry(
  children: AgentToolChildDefinition[],
  clock: Clock,
  options: Partial<AgentToolRegistryOptions> = {},
) {
  const store = new InMemoryRunStore();
  const transport = new InProcessChildTransport({ children, clock });
  const frames: AgentToolEventFrame[] = [];
  const registry = new AgentToolRegistry({
    store,
    transport,
    clock,
    sink: createRunEventHub(),
    broadcast: (frame) => frames.push(frame),
    ...options,
  });
  return { registry, store, transport, frames };
}
