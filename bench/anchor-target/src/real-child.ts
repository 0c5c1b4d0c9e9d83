import { AgentToolChild } from "@agent-tools/cloudflare";
import type { AgentToolTurnContext } from "@agent-tools/core-runs";
import { convertToModelMessages, streamText, toUIMessageStream } from "ai";
import { scriptedModel, scriptedPrompt } from "./scripted-model.js";
import { installSqlMeter, probeStorage, type SqlMeter, type StorageProbe } from "./sql-meter.js";
import { readStubInput } from "./stub-chunks.js";
import { measureTurnCost, type TurnCostSample } from "./turn-cost.js";

/** The agentType of the real child, and the name of its Durable Object binding. */
export const REAL_CHILD_TYPE = "RealChild";

/**
 * A real child: the package's `AgentToolChild` (its RPC surface, its runner over `DurableObjectRunStore`, its alarm
 * while a run is live) with a chat turn that is the AI SDK's `streamText` over the anchor harness's scripted mock
 * model, through `toUIMessageStream`. For input `{ count: C }` the model streams C text-deltas; `toUIMessageStream`
 * frames them (start, start-step, text-start, text-end, finish-step, finish), so a run logs and forwards C + 6
 * chunks, as the anchor's Think child does. The summary is the default one: the turn's text (Think's too).
 */
export class RealChild extends AgentToolChild {
  static readonly agentType = REAL_CHILD_TYPE;
  readonly meter: SqlMeter;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.meter = installSqlMeter(ctx.storage);
  }

  protected override async turn({ messages, abortSignal }: AgentToolTurnContext) {
    const result = streamText({
      model: scriptedModel(),
      messages: await convertToModelMessages(messages),
      abortSignal,
    });
    return toUIMessageStream({ stream: result.stream });
  }

  /** The run's input as the user text the scripted model reads (`emit C xW`), as the anchor's Think child words it. */
  formatAgentToolInput(input: unknown): string {
    const { count, deltaChars } = readStubInput(input);
    return scriptedPrompt(count, deltaChars);
  }

  /** The child-only micro-measure (turn-cost.ts, `scripts/turn-cost.mjs`): `turns` turns of C chunks. */
  benchTurnCost(count: number, turns: number): Promise<TurnCostSample> {
    const input = { count };
    const text = this.formatAgentToolInput(input);
    return measureTurnCost(this, (context) => this.turn(context), this.meter, { input, text, count, turns });
  }

  /** W5: this object's database. `withSchema` first creates the store's tables (as any used child has them). */
  benchStorageProbe(withSchema = false): StorageProbe {
    if (withSchema) void this.runner;
    return probeStorage(this.ctx.storage, this.meter);
  }
}
