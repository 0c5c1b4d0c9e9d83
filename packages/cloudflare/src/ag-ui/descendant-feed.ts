import type { AgentToolRegistry, AgentToolRunInfo } from "@agent-tools/core-runs";
import { type AgentToolEventFrame, isTerminalStatus } from "@agent-tools/core-runs/protocol";
import type { AgentToolChildStub, DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { fromNdjson } from "../adapters/ndjson.js";
import { DescendantFeeds, type DescendantItem, type OpenDescendants } from "./descendant-feeds.js";

const TERMINALS: ReadonlySet<string> = new Set(["finished", "error", "aborted", "interrupted"]);

/**
 * What run `runId` of a child dispatched, at every depth, as a feed (see `DescendantItem`): the frames of the runs it
 * dispatched, from the child's registry (`replay`, then live with `follow`), and, through their own children, the
 * frames of the runs they dispatched, and so on. With `follow` it ends once the run is over (`runEnded`) and every
 * run below it has ended; without, after the replay.
 * @internal
 */
export function descendantFeed(options: {
  registry: AgentToolRegistry;
  listen(listener: (frame: AgentToolEventFrame) => void): () => void;
  runId: string;
  follow: boolean;
  runEnded(): Promise<void>;
  open: OpenDescendants;
}): ReadableStream<DescendantItem> {
  const { registry, runId, follow } = options;
  const under = new Set<string>();
  const ended = new Set<string>();
  /** Runs whose place is being looked up (a start heard live): their frames wait. */
  const checking = new Map<string, AgentToolEventFrame[]>();
  let stop: () => void = () => undefined;
  let feeds: DescendantFeeds | undefined;
  let wake: () => void = () => undefined;
  let closed = false;
  return new ReadableStream<DescendantItem>({
    async start(controller) {
      const enqueue = (item: DescendantItem) => {
        if (closed) return;
        try {
          controller.enqueue(item);
        } catch {
          closed = true;
        }
      };
      const below = new DescendantFeeds({ open: options.open, push: enqueue, follow });
      feeds = below;
      const forward = (frame: AgentToolEventFrame) => {
        const { event } = frame;
        if (event.kind === "cleared") {
          for (const id of event.runIds) ended.add(id);
        } else if (TERMINALS.has(event.kind)) {
          ended.add(event.runId);
        }
        enqueue({ type: "frame", path: [], frame });
        below.seen(frame);
        wake();
      };
      const dispatchedHere = (run: AgentToolRunInfo | null) => run?.tree?.ancestors.at(-1)?.runId === runId;
      const live = (frame: AgentToolEventFrame) => {
        const { event } = frame;
        if (event.kind === "cleared") {
          const ours = event.runIds.filter((id) => under.has(id));
          if (ours.length > 0) forward({ ...frame, event: { ...event, runIds: ours } });
          return;
        }
        if (under.has(event.runId)) return forward(frame);
        const waiting = checking.get(event.runId);
        if (waiting) return void waiting.push(frame);
        if (event.kind !== "started") return;
        // A run started since: is it this run's?
        checking.set(event.runId, [frame]);
        void registry.getAgentToolRun(event.runId).then(
          (run) => {
            const frames = checking.get(event.runId) ?? [];
            checking.delete(event.runId);
            if (!dispatchedHere(run)) return;
            under.add(event.runId);
            for (const held of frames) forward(held);
          },
          () => checking.delete(event.runId),
        );
      };
      const held: AgentToolEventFrame[] = [];
      let replaying = true;
      stop = options.listen((frame) => (replaying ? held.push(frame) : live(frame)));
      try {
        for (const run of await registry.listAgentToolRuns()) {
          if (!dispatchedHere(run)) continue;
          under.add(run.runId);
          if (isTerminalStatus(run.status)) ended.add(run.runId);
          below.known(run);
        }
        await registry.replayAgentToolRuns((frame) => {
          const event = frame.event;
          if (event.kind !== "cleared" && under.has(event.runId)) forward(frame);
        });
      } catch (error) {
        stop();
        below.close();
        controller.error(error);
        return;
      }
      replaying = false;
      for (const frame of held.splice(0)) live(frame);
      await below.replayed();
      enqueue({ type: "replayed" });
      if (follow) {
        await options.runEnded();
        // Then every run below it ends (they end before it, unless they were dispatched to outlive it).
        while (![...under].every((id) => ended.has(id)) && !closed) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      }
      await below.ended();
      stop();
      if (closed) return;
      closed = true;
      controller.close();
    },
    cancel() {
      closed = true;
      stop();
      feeds?.close();
      wake();
    },
  });
}

/** Open a run's feed of what it dispatched through its child object (`agentToolDescendants`, over RPC). */
export function descendantsThrough(transport: Pick<DurableObjectChildTransport, "stub">): OpenDescendants {
  return async (run, follow) => {
    const stub: AgentToolChildStub = transport.stub(run);
    if (typeof stub.agentToolDescendants !== "function") throw new Error(`${run.agentType} has no descendant feed`);
    return fromNdjson<DescendantItem>(await stub.agentToolDescendants(run.runId, follow));
  };
}

/** Resolves once `stream` ended (read to its end, or it failed). */
export async function drained(stream: ReadableStream<unknown>): Promise<void> {
  try {
    const reader = stream.getReader();
    while (!(await reader.read()).done) {
      // only its end matters
    }
  } catch {
    // ended all the same
  }
}

/** A feed with nothing below: `replayed`, then its end (a child that dispatches no runs). */
export function emptyDescendantFeed(): ReadableStream<DescendantItem> {
  return new ReadableStream<DescendantItem>({
    start(controller) {
      controller.enqueue({ type: "replayed" });
      controller.close();
    },
  });
}
