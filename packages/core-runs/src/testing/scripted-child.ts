import type { UIMessageChunk } from "ai";
import type { AgentToolChildDefinition, AgentToolTurnContext } from "../child/child-definition.js";

/** The chunks of one text answer: start, a step with one text part made of `deltas`, finish. */
export function textChunks(deltas: readonly string[], id = "text-1"): UIMessageChunk[] {
  return [
    { type: "start" },
    { type: "start-step" },
    { type: "text-start", id },
    ...deltas.map((delta): UIMessageChunk => ({ type: "text-delta", id, delta })),
    { type: "text-end", id },
    { type: "finish-step" },
    { type: "finish" },
  ];
}

/**
 * A child that answers every run at once with fixed chunks (by default, the input echoed as text).
 * `turns` counts the turns it ran, so tests can assert a run never ran twice.
 */
export function echoChild(
  agentType: string,
  options: { chunks?: (input: unknown) => UIMessageChunk[]; output?: (input: unknown) => unknown } = {},
): AgentToolChildDefinition & { turns: string[] } {
  const turns: string[] = [];
  return {
    agentType,
    turns,
    turn(context) {
      turns.push(context.runId);
      if (options.output) context.setOutput(options.output(context.input));
      const chunks = options.chunks?.(context.input) ?? textChunks([`echo: ${JSON.stringify(context.input)}`]);
      return new ReadableStream<UIMessageChunk>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
    },
  };
}

/** Drives one run of a `ScriptedChild` from the test: emit chunks, then end it. */
export type ScriptedRunControl = {
  readonly runId: string;
  readonly context: Promise<AgentToolTurnContext>;
  emit(...chunks: UIMessageChunk[]): void;
  /** End the turn normally, optionally with a structured output. */
  complete(output?: unknown): void;
  /** Make the turn's stream fail (an out-of-band error). */
  fail(error: unknown): void;
};

/**
 * A child whose turns are driven step by step by the test, with no timers: `script.run(runId)` returns the run's
 * controls (created on first use, by the test or by the turn, whichever comes first). A run resumed after its host
 * was cut off has a turn again: that turn gets new controls, which `run(runId)` returns from then on.
 */
export class ScriptedChild {
  readonly agentType: string;
  /** Run ids in the order their turns started (a run id twice means a second turn). */
  readonly turns: string[] = [];
  readonly definition: AgentToolChildDefinition;
  readonly #runs = new Map<
    string,
    ScriptedRunControl & {
      stream: ReadableStream<UIMessageChunk>;
      resolveContext: (context: AgentToolTurnContext) => void;
      output: { value?: unknown; isSet: boolean };
      isTaken: boolean;
    }
  >();

  constructor(agentType: string) {
    this.agentType = agentType;
    this.definition = {
      agentType,
      turn: (context) => {
        this.turns.push(context.runId);
        let run = this.#control(context.runId);
        if (run.isTaken) {
          // A second turn of the run (a resume): new controls, replacing the old ones.
          this.#runs.delete(context.runId);
          run = this.#control(context.runId);
        }
        run.isTaken = true;
        run.resolveContext(context);
        return run.stream;
      },
      getAgentToolOutput: ({ runId, output }) => {
        const run = this.#runs.get(runId);
        return run?.output.isSet ? run.output.value : output;
      },
    };
  }

  /** The controls of one run. */
  run(runId: string): ScriptedRunControl {
    return this.#control(runId);
  }

  #control(runId: string) {
    const existing = this.#runs.get(runId);
    if (existing) return existing;
    let controller!: ReadableStreamDefaultController<UIMessageChunk>;
    let resolveContext!: (context: AgentToolTurnContext) => void;
    const context = new Promise<AgentToolTurnContext>((resolve) => {
      resolveContext = resolve;
    });
    const stream = new ReadableStream<UIMessageChunk>({
      start(streamController) {
        controller = streamController;
      },
    });
    let ended = false;
    const output: { value?: unknown; isSet: boolean } = { isSet: false };
    const control = {
      runId,
      context,
      stream,
      resolveContext,
      output,
      isTaken: false,
      emit: (...chunks: UIMessageChunk[]) => {
        if (ended) throw new Error(`run ${runId} already ended`);
        for (const chunk of chunks) controller.enqueue(chunk);
      },
      complete: (value?: unknown) => {
        if (ended) return;
        ended = true;
        if (value !== undefined) {
          output.value = value;
          output.isSet = true;
        }
        controller.close();
      },
      fail: (error: unknown) => {
        if (ended) return;
        ended = true;
        controller.error(error);
      },
    };
    this.#runs.set(runId, control);
    return control;
  }
}
