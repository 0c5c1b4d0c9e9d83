import type { AgentToolChildDefinition } from "../child-definition.js";
import type { AgentToolChildRunner } from "../child-runner.js";
import {
  type AgentToolPosition,
  type AgentToolRunInfo,
  type AgentToolTree,
  approvalChunk,
  positionOf,
} from "../protocol/index.js";
import type { AgentToolHooks, AgentToolRegistryOptions } from "../registry-options.js";
import type { RunBudget } from "../run-budget.js";
import type { AgentToolRegistry } from "../run-registry.js";

/** How a registry names what one node dispatched: a run's id, or a root turn's tree root. */
export type DispatchedFrom = { runId: string } | { rootId: string };

/**
 * A node of a tree of runs, as the registry of what it dispatches sees it: a child's run, or a conversation's turn
 * (a root). What the binding needs of it.
 */
export type TreeNode = {
  readonly from: DispatchedFrom;
  /** Where a run it dispatches goes: its tree's root and path (what is left of its budget is added). */
  readonly place: AgentToolPosition;
  /** What the node and its subtree spend (`null`: not known here). */
  readonly budget: RunBudget | null;
  /**
   * Publish an approval asked below it in its own journal (one level deeper), idempotently: a state it holds already
   * is not written again. None at a root turn (its clients read the top-level runs' logs themselves).
   */
  publishApproval?(chunk: ReturnType<typeof approvalChunk>): void;
};

/** The binding's view of a host: which node dispatches now, and which dispatched a given run. */
export type TreeBindingOptions = {
  /** The node whose turn dispatches right now (the run whose tool runs, the conversation's turn), or `null`. */
  current(): TreeNode | null;
  /** The node that dispatched `run` (from its tree), when it is live here; `null` otherwise. */
  dispatcherOf(run: AgentToolRunInfo): TreeNode | null;
  /** The host's own hooks: called after the binding's. */
  hooks?: AgentToolHooks;
};

/**
 * A turn or a run bound to its tree, written once for every host: the registry of what it dispatches places each
 * run under it (`position`: its root, its path, what is left of its budget), counts each dispatch and each report of
 * usage into its budget, and re-publishes every approval asked below it one level deeper, idempotently; the way down
 * (`down`) passes a cancel, a wrap-up and an answer to what it dispatched, and reads back what that spent.
 */
export class TreeBinding {
  readonly #options: TreeBindingOptions;

  constructor(options: TreeBindingOptions) {
    this.#options = options;
  }

  /** The options the node's registry is built with (its `position`, `onDispatch` and hooks). */
  registryOptions(): Pick<AgentToolRegistryOptions, "position" | "onDispatch" | "hooks"> {
    const { current, dispatcherOf, hooks } = this.#options;
    return {
      position: () => {
        const node = current();
        if (!node) return null;
        const budget = node.budget?.remaining();
        return budget === undefined ? node.place : { ...node.place, budget };
      },
      onDispatch: (run) => dispatcherOf(run)?.budget?.recordDispatch(),
      hooks: {
        ...hooks,
        onUsage: (run, usage) => {
          dispatcherOf(run)?.budget?.recordChild(run.runId, usage);
          return hooks?.onUsage?.(run, usage);
        },
        onApproval: (run, approval) => {
          // One level deeper: the path goes from the dispatching node's log down to the run that asks.
          const path = [{ agentType: run.agentType, runId: run.runId }, ...approval.path];
          dispatcherOf(run)?.publishApproval?.(approvalChunk({ ...approval, path }));
          return hooks?.onApproval?.(run, approval);
        },
      },
    };
  }

  /** The way down the tree, through `registry` (the node's registry of what it dispatched). */
  static down(registry: AgentToolRegistry) {
    return {
      /** Cancel what `from` dispatched (depth first) and resolve once it all ended. */
      cancel: (from: DispatchedFrom, reason: string) => registry.cancelDispatchedBy(from, reason).then(() => undefined),
      /** Tell what `from` dispatched that the budget ran out: each wraps up (and tells what it dispatched). */
      wrapUp: (from: DispatchedFrom, reason: Parameters<AgentToolRegistry["wrapUpDispatchedBy"]>[1]) =>
        registry.wrapUpDispatchedBy(from, reason),
      /** Pass an answer down to what `from` dispatched: the run that asked takes it. */
      answer: (from: DispatchedFrom, approvalId: string, answer: { approved: boolean; reason?: string }) =>
        registry.answerApprovalDispatchedBy(from, approvalId, answer),
      /** What the runs `from` dispatched spent, as their rows last recorded it, and how many it dispatched. */
      usage: (from: DispatchedFrom) => registry.usageDispatchedBy(from),
    };
  }
}

/**
 * A child's runs bound to the runs they dispatch through `registry()` (built on first use): each run of `runner` is a
 * node (its own tree place, its live budget, its log for approvals from below); `currentRun` says which run's turn
 * is dispatching now (a host's run scope). Returns the registry's options and the definition's hooks that go down.
 */
export function bindChildRuns(options: {
  runner: () => AgentToolChildRunner;
  agentType: string;
  currentRun(): { runId: string; tree: AgentToolTree | null } | null;
  hooks?: AgentToolHooks;
}) {
  const { runner, agentType } = options;
  const node = (runId: string, tree: AgentToolTree | null): TreeNode => ({
    from: { runId },
    place: positionOf(tree ?? { rootId: runId, ancestors: [] }, { agentType, runId }),
    budget: runner().budgetOf(runId),
    publishApproval: (chunk) => void runner().publishApproval(runId, chunk),
  });
  const binding = new TreeBinding({
    current: () => {
      const scope = options.currentRun();
      return scope ? node(scope.runId, scope.tree) : null;
    },
    dispatcherOf: (run) => {
      const runId = run.tree?.ancestors.at(-1)?.runId;
      return runId === undefined ? null : node(runId, null);
    },
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  return {
    registryOptions: () => binding.registryOptions(),
    /** The definition's hooks that go down the tree through the registry of what its runs dispatched. */
    definitionHooks: (
      registry: () => AgentToolRegistry | null,
    ): Pick<AgentToolChildDefinition, "onCancel" | "onBudgetExhausted" | "onApprovalAnswer" | "dispatchedUsage"> => {
      const down = () => {
        const current = registry();
        return current ? TreeBinding.down(current) : null;
      };
      return {
        // A cancelled run cancels what it dispatched itself first: the tree ends from its leaves up.
        onCancel: async (runId, reason) => await down()?.cancel({ runId }, reason),
        // Its budget ran out: what it dispatched wraps up too.
        onBudgetExhausted: (runId, reason) => void down()?.wrapUp({ runId }, reason),
        // An answer to an approval asked below the run: to what it dispatched (the run that asked takes it).
        onApprovalAnswer: async (runId, approvalId, answer) =>
          (await down()?.answer({ runId }, approvalId, answer)) ?? false,
        // Resumed after a restart: what the runs it dispatched before spent, from their rows.
        dispatchedUsage: async (runId) => (await down()?.usage({ runId })) ?? { children: [], dispatched: 0 },
      };
    },
  };
}

/** The root id of the tree of runs a conversation turn dispatches. */
export function turnRootId(turnId: string): string {
  return `turn:${turnId}`;
}

/**
 * A conversation's turns bound to the runs their tools dispatch through `registry()`: the turn in flight is the root
 * of the tree (`turn:<turnId>`), its runs count against its budget and report to it; a Stop cancels its tree, a
 * budget out wraps it up; a turn resumed after a restart goes on from what its runs spent (read once, the first time
 * its budget is used).
 */
export function bindConversationTurns(options: {
  current(): { turnId: string; budget: RunBudget; isResumed: boolean } | null;
  registry(): AgentToolRegistry;
  /** Keep the host awake while `work` runs (the restore, a cancel, a wrap-up). */
  track(work: Promise<unknown>): void;
  hooks?: AgentToolHooks;
}) {
  let restored: string | null = null;
  const root = (): TreeNode | null => {
    const turn = options.current();
    if (!turn) return null;
    const rootId = turnRootId(turn.turnId);
    if (turn.isResumed && restored !== turn.turnId) {
      restored = turn.turnId;
      const restoring = TreeBinding.down(options.registry())
        .usage({ rootId })
        .then(({ children, dispatched }) => turn.budget.restore(children, dispatched));
      options.track(restoring.catch(() => undefined));
    }
    return { from: { rootId }, place: { rootId, path: [] }, budget: turn.budget };
  };
  const binding = new TreeBinding({
    current: root,
    // A run the turn in flight dispatched itself (a top-level run of its tree).
    dispatcherOf: (run) => {
      const node = root();
      const isOwn = node && "rootId" in node.from && run.tree?.rootId === node.from.rootId;
      return isOwn && run.tree?.ancestors.length === 0 ? node : null;
    },
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  const down = () => TreeBinding.down(options.registry());
  return {
    registryOptions: () => binding.registryOptions(),
    /** A Stop cancels the turn's whole tree, from its leaves up (a run dispatched to outlive it is kept). */
    onStop: (turnId: string, reason: string) => options.track(down().cancel({ rootId: turnRootId(turnId) }, reason)),
    /** The turn's budget ran out: every run its tools dispatched wraps up (and tells what it dispatched). */
    onBudgetExhausted: (turnId: string, reason: Parameters<AgentToolRegistry["wrapUpDispatchedBy"]>[1]) =>
      options.track(down().wrapUp({ rootId: turnRootId(turnId) }, reason)),
  };
}
