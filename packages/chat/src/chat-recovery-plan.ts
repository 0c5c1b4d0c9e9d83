import type { StoredChatTurn } from "./ports/chat-store.js";

/**
 * What start-up does with the turns a crash left stored:
 * - `lost`: turns that are not the newest: turns run one at a time, so an older row is one whose end could not be
 *   stored (its answer is closed as failed, never resumed);
 * - `resume`: the newest turn, with its attempt already counted (the engine stores that count before it writes
 *   anything else, so a write that fails every time still ends in `close`);
 * - `close`: the newest turn when it was resumed `maxResumeAttempts` times already: closed as interrupted.
 */
export type ChatRecoveryPlan = {
  lost: StoredChatTurn[];
  resume: StoredChatTurn | null;
  close: StoredChatTurn | null;
};

/** Plan start-up from the stored turns (any order), as a pure function. */
export function planChatRecovery(turns: readonly StoredChatTurn[], maxResumeAttempts: number): ChatRecoveryPlan {
  const ordered = [...turns].sort((left, right) => left.startedAt - right.startedAt);
  const newest = ordered.pop();
  if (newest === undefined) return { lost: [], resume: null, close: null };
  const counted = { ...newest, resumeAttempts: newest.resumeAttempts + 1 };
  return counted.resumeAttempts > maxResumeAttempts
    ? { lost: ordered, resume: null, close: counted }
    : { lost: ordered, resume: counted, close: null };
}
