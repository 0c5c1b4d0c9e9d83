import { AgentToolChild } from "@agent-tools/cloudflare";
import type { AgentToolChildDefinition, AgentToolRunInspection } from "@agent-tools/core-runs";
import { afterTextDeltas, type FaultEnv, FaultHold, faultTextDeltas, holdStreamAfter } from "./fault-points.js";
import { type HoldEnv, holdAtTextDeltas, holdPointsOf } from "./test-holds.js";

const TURNS_KEY = "agentToolTurns";
const RESUMED_TURNS_KEY = "agentToolResumedTurns";

/** The demo's test knobs for its children (fault tests; `DEMO_HOLD_AFTER`, see test-holds.ts). */
type DemoChildEnv = FaultEnv &
  HoldEnv & {
    /** "1": a child's `agentToolStart` never answers nor records the run ("before the child starts"). */
    DEMO_HOLD_CHILD_START?: string;
    /** "1": a child's `agentToolDestroy` cancels the run, then never answers ("during clear"). */
    DEMO_HOLD_CHILD_DESTROY?: string;
  };

/**
 * The demo's children: `AgentToolChild` plus what its tests observe — turns counted durably (a run never gets a
 * second fresh turn; a turn resumed after the host was cut off is counted apart) and shown on the drill-in JSON — and
 * the tests' hold knobs (the fault tests', and `DEMO_HOLD_AFTER`'s holds until released).
 */
export abstract class DemoChild<TEnv extends DemoChildEnv> extends AgentToolChild<TEnv> {
  /** Test-only: the `child-streaming` fault point (`DEMO_FAULT_POINT`, off by default; see fault-points.ts). */
  #faults: FaultHold | undefined;

  protected override definition(): AgentToolChildDefinition {
    const definition = super.definition();
    return {
      ...definition,
      turn: async (context) => {
        const key = context.resumed ? RESUMED_TURNS_KEY : TURNS_KEY;
        await this.ctx.storage.put(key, ((await this.ctx.storage.get<number>(key)) ?? 0) + 1);
        const turnStream = await definition.turn(context);
        // Test-only: held after some text deltas until cancelled or released (`DEMO_HOLD_AFTER`; see test-holds.ts).
        const holdPoints = holdPointsOf(this.env, definition.agentType);
        const stream = holdPoints.length > 0 ? holdAtTextDeltas(turnStream, holdPoints, context) : turnStream;
        this.#faults ??= new FaultHold(this.env);
        if (!this.#faults.is("child-streaming")) return stream;
        // Held once the runner has logged this many text deltas (it asks for the next chunk only after that).
        const faults = this.#faults;
        return holdStreamAfter(stream, afterTextDeltas(faultTextDeltas(this.env)), () => faults.hold({}));
      },
    };
  }

  override agentToolStart(runId: string, input: unknown): Promise<AgentToolRunInspection> {
    // A start that never arrives, as if the runtime stopped before the child recorded it.
    if (this.env.DEMO_HOLD_CHILD_START === "1") return new Promise(() => {});
    return super.agentToolStart(runId, input);
  }

  override async agentToolDestroy(runId: string): Promise<void> {
    // A destroy that never answers, as if the runtime stopped in the middle of a clear.
    if (this.env.DEMO_HOLD_CHILD_DESTROY === "1") {
      await this.agentToolCancel(runId, "Cleared");
      return new Promise(() => {});
    }
    await super.agentToolDestroy(runId);
  }

  protected override async drillInSnapshot(runId: string): Promise<Record<string, unknown>> {
    return {
      ...(await super.drillInSnapshot(runId)),
      turns: (await this.ctx.storage.get<number>(TURNS_KEY)) ?? 0,
      resumedTurns: (await this.ctx.storage.get<number>(RESUMED_TURNS_KEY)) ?? 0,
    };
  }
}
