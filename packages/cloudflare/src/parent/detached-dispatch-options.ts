import type { AgentToolLifecycleResult, AgentToolRunInfo } from "@agent-tools/core-runs";
import type { RunAgentToolOptions } from "@agent-tools/core-runs/internal";
import type { DetachedOptions } from "@agent-tools/detached/internal";

/** A parent method that can receive a detached run's result by name (`onFinish`): called `(run, result)`. */
export type DetachedFinishHandler = (run: AgentToolRunInfo, result: AgentToolLifecycleResult) => unknown;

/**
 * What `onFinish: TMethod` asks of the parent it is dispatched on: a public method of that name taking
 * `(run, result)`. Checked against the class itself, so it holds inside the subclass's own methods (where `this`
 * is the class's polymorphic `this`, whose method names a mapped type cannot filter).
 */
export type DetachedFinishHost<TMethod extends string> = { [K in NoInfer<TMethod>]: DetachedFinishHandler };

/** `detached: { … }` on `AgentToolParent.runAgentTool`: `@agent-tools/detached`'s options, `onFinish` by name. */
export type ParentDetachedOptions<TMethod extends string = never> = Omit<DetachedOptions<object>, "onFinish"> & {
  /** The parent's method that receives `(run, result)` (a name, never a closure: it must survive eviction). */
  onFinish?: TMethod;
};

/** `AgentToolParent.runAgentTool`'s options for a detached run (which takes no `signal`). */
export type ParentRunAgentToolDetachedOptions<TInput, TMethod extends string = never> = Omit<
  RunAgentToolOptions<TInput>,
  "signal"
> & { detached: true | ParentDetachedOptions<TMethod> };
