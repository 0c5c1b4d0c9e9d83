import { AgentToolsError, getDefaultRunEventHub } from "@agent-tools/core-runs";
import type { RunEventHub } from "@agent-tools/core-runs/internal";
import {
  type CoreRunEventOf,
  type CoreRunEventType,
  OBSERVABILITY_CHANNEL_NAMES,
  type ObservabilityChannelName,
  type RunEvent,
  runIdOf,
} from "./channel.js";

/** Receives run events. A listener that throws is isolated: other listeners and the run go on. */
export type RunEventListener = (event: RunEvent) => void;

/** Where `subscribe` listens: anything with the hub's `subscribe` (default: the process-wide hub). */
export type RunEventSource = Pick<RunEventHub, "subscribe">;

export type SubscribeOptions = {
  /**
   * Only these event types. An entry ending in `*` matches by prefix (`"agent_tool:child:*"`). Default: all.
   * Listing only core types narrows the listener's event type.
   */
  types?: readonly string[];
  /** Only events of this run (events without a `runId`, such as `agent_tool:clear`, are left out). */
  runId?: string;
  /** Listen here instead of the process-wide hub: the hub a host passed to core as its `sink`. */
  source?: RunEventSource;
};

/**
 * Listen to agent-tool run events. Core emits into the process-wide hub by default, so this works with no wiring.
 * Returns the function that stops listening (calling it twice is harmless).
 *
 * Guarantees: events arrive synchronously, in the order core emits them; a listener that throws never breaks a
 * run nor other listeners; with no subscriber at all, core's `emit` returns at once. Events are shared with other
 * listeners: treat them as read-only.
 *
 * @example
 * const unsubscribe = subscribe("agentTool", (event) => {
 *   if (event.type === "agent_tool:run:finish") metrics.count(event.type);
 * });
 * // later
 * unsubscribe();
 *
 * @throws AgentToolsError (`INVALID_ARGUMENT`) for an unknown channel name or a listener that is not a function.
 */
export function subscribe<const TType extends CoreRunEventType>(
  channel: ObservabilityChannelName,
  listener: (event: CoreRunEventOf<TType>) => void,
  options: SubscribeOptions & { types: readonly TType[] },
): () => void;
export function subscribe(
  channel: ObservabilityChannelName,
  listener: RunEventListener,
  options?: SubscribeOptions,
): () => void;
export function subscribe(
  channel: ObservabilityChannelName,
  listener: (event: never) => void,
  options: SubscribeOptions = {},
): () => void {
  if (!(OBSERVABILITY_CHANNEL_NAMES as readonly unknown[]).includes(channel)) {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `Unknown observability channel ${JSON.stringify(channel)}: use ${OBSERVABILITY_CHANNEL_NAMES.map((name) => JSON.stringify(name)).join(", ")}`,
    );
  }
  if (typeof listener !== "function") {
    throw new AgentToolsError("INVALID_ARGUMENT", "subscribe(channel, listener): the listener must be a function");
  }
  const deliver = listener as RunEventListener;
  const matches = eventFilter(options);
  const source = options.source ?? getDefaultRunEventHub();
  return source.subscribe((event) => {
    if (!matches(event)) return;
    try {
      deliver(event);
    } catch {
      // The hub isolates listeners too; this keeps the guarantee for a host's own source.
    }
  });
}

function eventFilter(options: SubscribeOptions): (event: RunEvent) => boolean {
  const { types, runId } = options;
  let exact: Set<string> | undefined;
  let prefixes: string[] = [];
  if (types !== undefined) {
    exact = new Set(types.filter((type) => !type.endsWith("*")));
    prefixes = types.filter((type) => type.endsWith("*")).map((type) => type.slice(0, -1));
  }
  return (event) => {
    if (runId !== undefined && runIdOf(event) !== runId) return false;
    if (exact === undefined) return true;
    return exact.has(event.type) || prefixes.some((prefix) => event.type.startsWith(prefix));
  };
}
