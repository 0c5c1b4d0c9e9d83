import type { AgentToolBudget, AgentToolUsage, TimerHandle } from "@agent-tools/core-runs";
import {
  assembleMessage,
  errorMessage,
  foldJournal,
  type JournalEntry,
  RunBudget,
  runTurn,
  type TurnHost,
} from "@agent-tools/core-runs/internal";
import { usageChunk } from "@agent-tools/core-runs/protocol";
import type { UIMessage, UIMessageChunk } from "ai";
import { ActiveTurn } from "./active-turn.js";
import type { ChatFollower } from "./chat-engine-options.js";
import type { ChatRuntime } from "./chat-runtime.js";
import { endChatTurn } from "./chat-turn-end.js";
import { ChatTurnJournal } from "./chat-turn-journal.js";
import { guardTools } from "./guarded-tools.js";
import type { ChatTurnOrigin, StoredChatTurn } from "./ports/chat-store.js";
import { DEFAULT_CHAT_WRITE_INTERVAL_MS, TurnLogWriter } from "./turn-log-writer.js";
import { nextTurnState, QUEUED_TURN, STARTING_TURN } from "./turn-machine.js";
import { TurnUsageRecord } from "./turn-usage-record.js";
import { repairUnfinishedToolParts } from "./unfinished-tool-calls.js";

/** A turn to run: a new one (with the user message that starts it), or a cut one to resume. @internal */
export type ChatTurnSpec<TPeer> =
  | {
      kind: "new";
      origin: ChatTurnOrigin;
      userMessage: UIMessage | null;
      keepUntil?: string;
      follower?: ChatFollower<TPeer>;
    }
  | { kind: "resume"; stored: StoredChatTurn };

/**
 * Run one turn of the conversation to its end on the turn engine, with the turn's stored chunks as its journal: a new
 * turn from its user message, a resumed one from what its journal holds (the engine finishes the cut before the
 * model goes on). Resolves the answer it stored (`null` when it stored none).
 * @internal
 */
export async function runChatTurn<TPeer>(
  runtime: ChatRuntime<TPeer>,
  spec: ChatTurnSpec<TPeer>,
): Promise<UIMessage | null> {
  const stored = spec.kind === "new" ? await beginChatTurn(runtime, spec) : spec.stored;
  const { store, clock } = runtime.options;
  const resumed = spec.kind === "resume";
  // A resumed turn's journal is read first: the turn's own usage goes on from what the journal last recorded.
  let entries: JournalEntry[] = [];
  let readError: unknown;
  try {
    if (resumed)
      entries = (await store.turnChunks(stored.turnId)).map((body, index) => ({ sequence: index + 1, body }));
  } catch (error) {
    readError = error;
  }
  const usage = new TurnUsageRecord({
    store,
    turn: stored,
    onError: (error) => runtime.storeFailed(stored.turnId, "usage", error),
  });
  let note = (_chunk: UIMessageChunk) => {};
  // The journal's usage is the one consistent with its steps: a step not journaled is done again, so its model call's
  // usage must not be counted from before (the turn row's may be ahead). A turn stored before the journal had its
  // usage there: its row's figure is taken when its journal holds finished steps and no usage.
  const fold = foldJournal(entries);
  const own = fold.usage ?? (fold.finishedSteps.length > 0 ? stored.usage : undefined);
  const active = new ActiveTurn<TPeer>({
    budget: chatTurnBudget(runtime, stored, { usage, own, note: (chunk) => note(chunk) }),
    usage,
    stored,
    state: spec.kind === "new" ? nextTurnState(QUEUED_TURN, { type: "start" }) : STARTING_TURN,
    limits: runtime.limits,
    send: runtime.options.send,
    writer: new TurnLogWriter({
      store,
      clock,
      turnId: stored.turnId,
      intervalMs: runtime.options.writeIntervalMs ?? DEFAULT_CHAT_WRITE_INTERVAL_MS,
    }),
  });
  if (spec.kind === "new" && spec.follower) active.follow(spec.follower.peer, spec.follower.requestId, false);
  runtime.active = active;
  runtime.options.announce({ kind: "turn-started", turnId: stored.turnId, origin: stored.origin, resumed });
  runtime.emit({ type: "agent_tool:chat:turn:start", turnId: stored.turnId, origin: stored.origin, resumed });
  const journal = new ChatTurnJournal({
    store,
    active,
    maxAnswerBytes: runtime.limits.maxAnswerBytes,
    // An answer over its limit, or a write that failed, fails the turn and stops its model.
    onRefused: (errorText) => {
      if (active.apply({ type: "fail", errorText })) active.controller.abort();
    },
  });
  note = (chunk) => journal.note(chunk);
  try {
    if (readError !== undefined) throw readError;
    const outcome = await runTurn(turnHost(runtime, active, journal), {
      resumed,
      entries,
      onRecord: (record, plan) => {
        active.record = record;
        if (plan.closeStep || plan.run.length > 0) active.apply({ type: "cut-step" });
      },
      onModel: () => active.apply({ type: "stream-open" }),
    });
    if (outcome.kind === "ended" && outcome.thrown !== undefined) throw outcome.thrown;
    active.apply({ type: "stream-end" });
  } catch (error) {
    active.apply({ type: "fail", errorText: errorMessage(error) });
  }
  return endChatTurn(runtime, active);
}

/** What the turn engine needs of a conversation turn. */
function turnHost<TPeer>(
  runtime: ChatRuntime<TPeer>,
  active: ActiveTurn<TPeer>,
  journal: ChatTurnJournal<TPeer>,
): TurnHost {
  const { turnId, origin, assistantMessageId } = active.stored;
  const { options, limits } = runtime;
  return {
    journal,
    // Within the size limits (a call over one fails with an error the model sees); the engine journals them.
    tools: () => guardTools(options.tools() ?? {}, { limits }),
    // The stored conversation (made valid for a model turn) with the turn's answer so far last.
    transcript: async (chunks) => {
      const held = repairUnfinishedToolParts(await runtime.conversation.load());
      const partial = await assembleMessage(chunks, assistantMessageId);
      return partial && partial.parts.length > 0 ? [...held, partial] : held;
    },
    stream: ({ setOutput: _setOutput, ...context }) =>
      options.stream({ ...context, turnId, origin, whenStored: () => active.writer.flush() }),
    budget: active.budget,
    signal: active.controller.signal,
    // A transient chunk of the model turn reaches the followers and is never written.
    publish: (chunk) => void active.push(chunk, { write: false }),
    newApprovalId: (toolCallId) => `approval-${toolCallId}`,
  };
}

/**
 * A turn's budget: its limits (a wall time becomes a deadline now); its own share goes on from `own` (what it spent
 * before a cut); each change is journaled (`note`) and kept on the stored turn, and told to every client (at most
 * every 250 ms, the last on `turn-ended`); when it runs out, the host tells the turn's runs.
 */
function chatTurnBudget<TPeer>(
  runtime: ChatRuntime<TPeer>,
  stored: StoredChatTurn,
  options: { usage: TurnUsageRecord; own: AgentToolUsage | undefined; note(chunk: UIMessageChunk): void },
): RunBudget {
  const { turnId } = stored;
  const { clock } = runtime.options;
  const { wallTimeMs, costOf, ...limits } = runtime.options.budget ?? {};
  const budget: AgentToolBudget = {
    ...limits,
    ...(wallTimeMs !== undefined ? { deadline: clock.now() + wallTimeMs } : {}),
  };
  let timer: TimerHandle | null = null;
  const turnBudget: RunBudget = new RunBudget({
    budget: Object.keys(budget).length > 0 ? budget : undefined,
    clock,
    ...(costOf ? { costOf } : {}),
    // A resumed turn goes on from what it spent itself before the cut (its runs' figures come back from their rows).
    ...(options.own ? { initial: options.own } : {}),
    onChange: (total) => {
      // Journaled with the turn's chunks: a step's usage is durable with its `finish-step`, so a resumed turn never
      // counts a finished step twice nor misses one. Only when its model calls' figure changed: a dispatch, or a
      // run's report, alone is not journaled nor stored (a resumed turn counts its runs, and what they spent, from
      // their rows), so a turn of 1 000 agent tool calls does not write 1 000 usage chunks and turn rows.
      const own = turnBudget.own();
      if (options.usage.record(own)) options.note({ ...usageChunk(total, own), transient: true } as UIMessageChunk);
      if (timer !== null) return;
      timer = clock.setTimeout(() => {
        timer = null;
        if (runtime.active?.stored.turnId !== turnId) return;
        runtime.options.announce({ kind: "turn-usage", turnId, usage: turnBudget.total() });
      }, 250);
    },
    onExhausted: (reason) => {
      try {
        runtime.options.onBudgetExhausted?.(turnId, reason);
      } catch {
        // a host's hook never breaks the turn
      }
    },
  });
  return turnBudget;
}

/** Store a new turn and its user message (and drop what an edit or a regenerate replaces), then tell every client. */
async function beginChatTurn<TPeer>(
  runtime: ChatRuntime<TPeer>,
  spec: Extract<ChatTurnSpec<TPeer>, { kind: "new" }>,
): Promise<StoredChatTurn> {
  const { store, clock, generateId, announce } = runtime.options;
  const stored: StoredChatTurn = {
    turnId: generateId(),
    origin: spec.origin,
    assistantMessageId: generateId(),
    startedAt: clock.now(),
    resumeAttempts: 0,
    ...(spec.userMessage ? { userMessageId: spec.userMessage.id } : {}),
  };
  const { keepUntil, userMessage } = spec;
  try {
    if (keepUntil !== undefined) {
      await runtime.write(() => store.truncateFrom(keepUntil));
      runtime.conversation.truncatedFrom(keepUntil);
      announce({ kind: "history" });
    }
    await runtime.write(() => store.beginTurn(stored, userMessage ?? undefined));
    if (userMessage) runtime.held(userMessage);
  } catch (error) {
    runtime.storeFailed(stored.turnId, "begin", error);
    runtime.endFollower(spec.follower ?? null, `The message could not be saved: ${errorMessage(error)}`);
    throw error;
  }
  if (spec.userMessage) announce({ kind: "message", message: spec.userMessage });
  return stored;
}
