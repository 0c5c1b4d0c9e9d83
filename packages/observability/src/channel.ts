import type { CoreRunEvent, RunEvent } from "@agent-tools/core-runs/internal";

export type { DispatchRejection } from "@agent-tools/core-runs";
export type { CoreRunEvent, ExtensionRunEvent, RunEvent } from "@agent-tools/core-runs/internal";

/** The `diagnostics_channel` name every run event is published on (SPEC §11). Core's default hub publishes there. */
export { AGENT_TOOL_DIAGNOSTICS_CHANNEL } from "@agent-tools/core-runs/internal";

/** The names `subscribe` accepts. There is one: `"agentTool"`, every run event. */
export type ObservabilityChannelName = "agentTool";

/** Every name `subscribe` accepts. */
export const OBSERVABILITY_CHANNEL_NAMES: readonly ObservabilityChannelName[] = ["agentTool"];

/** The `type` of an event core emits. */
export type CoreRunEventType = CoreRunEvent["type"];

/** The core event of one `type`, e.g. `CoreRunEventOf<"agent_tool:run:finish">`. */
export type CoreRunEventOf<TType extends CoreRunEventType> = Extract<CoreRunEvent, { type: TType }>;

// A record, so that the compiler refuses this list the day core adds an event type and it is not listed here.
const coreRunEventTypes: Record<CoreRunEventType, true> = {
  "agent_tool:run:dispatch": true,
  "agent_tool:run:start": true,
  "agent_tool:run:rejected": true,
  "agent_tool:run:finish": true,
  "agent_tool:run:reattach": true,
  "agent_tool:hook:error": true,
  "agent_tool:replay": true,
  "agent_tool:clear": true,
  "agent_tool:child:turn:start": true,
  "agent_tool:child:turn:finish": true,
  "agent_tool:run:progress": true,
  "agent_tool:child:recover": true,
};

/**
 * Every event `type` `@agent-tools/core-runs` emits, in the order of a run's life. Extension packages (progress,
 * detached, recovery) emit more types in the same `agent_tool:` namespace; those are `ExtensionRunEvent`s.
 */
export const CORE_RUN_EVENT_TYPES: readonly CoreRunEventType[] = Object.freeze(
  Object.keys(coreRunEventTypes) as CoreRunEventType[],
);

/** True when `type` is one of the event types core emits. */
export function isCoreRunEventType(type: string): type is CoreRunEventType {
  return Object.hasOwn(coreRunEventTypes, type);
}

/** True when `event` is one of the events core emits (narrows the `RunEvent` union to `CoreRunEvent`). */
export function isCoreRunEvent(event: RunEvent): event is CoreRunEvent {
  return isCoreRunEventType(event.type);
}

/**
 * A type guard for one event type, for `if` and `filter`. Narrowing on `event.type === "…"` alone does not
 * narrow `RunEvent`, because extension events share the `agent_tool:` namespace.
 *
 * @example
 * const finishes = events.filter(isAgentToolEvent("agent_tool:run:finish"));
 * for (const finish of finishes) console.log(finish.status, finish.durationMs);
 */
export function isAgentToolEvent<TType extends CoreRunEventType>(
  type: TType,
): (event: RunEvent) => event is CoreRunEventOf<TType> {
  return (event): event is CoreRunEventOf<TType> => event.type === type;
}

/**
 * True when `value` looks like a run event: an object with an `agent_tool:` `type` and a numeric `at`. For
 * messages that arrive untyped, e.g. from `diagnostics_channel`.
 */
export function isRunEvent(value: unknown): value is RunEvent {
  if (typeof value !== "object" || value === null) return false;
  const { type, at } = value as { type?: unknown; at?: unknown };
  return typeof type === "string" && type.startsWith("agent_tool:") && typeof at === "number";
}

/** The event's run id, or `undefined` for events about no single run (`agent_tool:replay`, `agent_tool:clear`). */
export function runIdOf(event: RunEvent): string | undefined {
  const runId = "runId" in event ? event.runId : undefined;
  return typeof runId === "string" ? runId : undefined;
}
