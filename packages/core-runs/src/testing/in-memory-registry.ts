import type { AgentToolChildDefinition } from "../child-definition.js";
import type { Clock } from "../ports/clock.js";
import type { AgentToolEventFrame } from "../protocol/index.js";
import type { AgentToolRegistryOptions } from "../registry-options.js";
import { createRunEventHub } from "../run-event-hub.js";
import { AgentToolRegistry } from "../run-registry.js";
import { InMemoryRunStore } from "./in-memory-run-store.js";
import { InProcessChildTransport } from "./in-process-child-transport.js";

/**
 * A parent's registry in one call: over an `InMemoryRunStore` and an `InProcessChildTransport` of `children`, on
 * `clock`, with an event hub of its own (`sink`: its events reach no other test), and the frames it broadcast.
 * `options` are passed on (hooks, limits…). For children that dispatch children of their own, use `inMemoryTree`.
 *
 * @experimental
 */
export function inMemoryRegistry(
  children: readonly AgentToolChildDefinition[],
  clock: Clock,
  options: Partial<AgentToolRegistryOptions> = {},
) {
  const store = new InMemoryRunStore();
  const sink = createRunEventHub();
  const transport = new InProcessChildTransport({ children, clock });
  const frames: AgentToolEventFrame[] = [];
  const registry = new AgentToolRegistry({
    store,
    transport,
    clock,
    sink,
    broadcast: (frame) => frames.push(frame),
    ...options,
  });
  return { registry, store, transport, frames, sink };
}
