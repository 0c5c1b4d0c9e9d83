import type { DetachedRunsOptions } from "@agent-tools/detached/internal";
import type { RecoverAgentToolRunsOptions } from "@agent-tools/recovery";

/**
 * A parent's static options (`static detachedMaxBudgetMs = …` on the subclass): defaults of
 * detached runs' budgets and of start-up recovery's waits. The options methods (`detachedOptions()`,
 * `recoveryOptions()`) win over them.
 */
export type AgentToolParentStaticOptions = {
  /** Default absolute budget of a detached run (24 h unless set). */
  detachedMaxBudgetMs?: number;
  /** Default no-progress budget of a detached run (1 h unless set; `0` or `Infinity` turns it off). */
  detachedNoProgressBudgetMs?: number;
  /** How long a child re-attached at start-up may stay silent (120 000 unless set; `0`: collect finished ones only). */
  agentToolReattachNoProgressTimeoutMs?: number;
  /** A hard cap on following a re-attached child (`Infinity` unless set; `0` also means no cap). */
  agentToolReattachMaxWindowMs?: number;
  /** Bound on one inspection of a child at start-up (2 000 unless set). */
  agentToolInspectTimeoutMs?: number;
  /** Bound on sorting out every row at start-up (5 000 unless set). */
  agentToolRecoveryDeadlineMs?: number;
};

const DETACHED_STATICS = ["detachedMaxBudgetMs", "detachedNoProgressBudgetMs"] as const;
const RECOVERY_STATICS = [
  "agentToolReattachNoProgressTimeoutMs",
  "agentToolReattachMaxWindowMs",
  "agentToolInspectTimeoutMs",
  "agentToolRecoveryDeadlineMs",
] as const;

type DetachedDefaults = Pick<DetachedRunsOptions<object>, (typeof DETACHED_STATICS)[number]>;

/**
 * The options a parent runs with: its class's statics (inherited ones included, as static properties are) under
 * what its options methods return. A static of the wrong type is passed on as it is, for the option's own check to
 * refuse with the option's name.
 * @internal
 */
export function withStaticOptions<TDetached extends object>(
  parentClass: unknown,
  methods: { recovery: RecoverAgentToolRunsOptions; detached: TDetached },
): { recovery: RecoverAgentToolRunsOptions; detached: DetachedDefaults & TDetached } {
  const statics = (parentClass ?? {}) as Record<string, unknown>;
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.flatMap((name) => (statics[name] === undefined ? [] : [[name, statics[name]]])));
  return {
    recovery: { ...pick(RECOVERY_STATICS), ...methods.recovery },
    detached: { ...pick(DETACHED_STATICS), ...methods.detached },
  };
}
