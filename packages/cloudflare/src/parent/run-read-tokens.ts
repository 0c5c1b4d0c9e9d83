import {
  type AgentToolRegistry,
  AgentToolsError,
  type Clock,
  getDefaultRunEventHub,
  systemClock,
} from "@agent-tools/core-runs";
import type { RunEventSink } from "@agent-tools/core-runs/internal";
import {
  importRunReadTokenKey,
  MIN_RUN_TOKEN_SECRET_LENGTH,
  type RunReadTokenCheck,
  type RunReadTokenKey,
  type RunReadTokenRefusal,
  runReadTokenStatus,
  signRunReadToken,
  verifyRunReadToken,
} from "../auth/run-read-token.js";

/** Default lifetime of a run read token: 1 h. */
export const DEFAULT_RUN_TOKEN_TTL_MS = 60 * 60 * 1000;

/** The binding a parent reads its run token secret from, unless `runTokenSecret()` says otherwise. */
export const RUN_TOKEN_SECRET_BINDING = "AGENT_TOOLS_RUN_TOKEN_SECRET";

/**
 * A parent's run read tokens: signed with its secret (read on first use, its key imported once), naming the parent,
 * the run and an expiry. Without a secret, signing is an error and every token is refused as forged.
 */
export class RunReadTokens {
  readonly #options: { parentId: string; clock: Clock; sink: RunEventSink; secret: () => string | undefined };
  #key: Promise<RunReadTokenKey | null> | undefined;
  #isReported = false;

  /**
   * Tokens of parent `parentId`, with the secret `secret()` returns (read on first use); time from `clock`, a
   * misconfigured secret reported on `sink` (default: the process-wide hub).
   */
  constructor(options: { parentId: string; clock?: Clock; sink?: RunEventSink; secret: () => string | undefined }) {
    this.#options = { clock: systemClock, sink: getDefaultRunEventHub(), ...options };
  }

  /**
   * What is wrong with the secret, or `null`: a secret shorter than `MIN_RUN_TOKEN_SECRET_LENGTH` makes every token
   * unusable, so it is reported once as an `agent_tool:config:error` event and every use is answered with this text.
   */
  configError(): string | null {
    const secret = this.#options.secret();
    if (secret === undefined || secret.length >= MIN_RUN_TOKEN_SECRET_LENGTH) return null;
    const message =
      `Run read tokens are misconfigured: the run token secret (the ${RUN_TOKEN_SECRET_BINDING} binding, or ` +
      `runTokenSecret()) must be at least ${MIN_RUN_TOKEN_SECRET_LENGTH} characters`;
    if (!this.#isReported) {
      this.#isReported = true;
      const { sink, clock } = this.#options;
      try {
        sink.emit({ type: "agent_tool:config:error", setting: RUN_TOKEN_SECRET_BINDING, message, at: clock.now() });
      } catch {
        // a broken sink never breaks the answer
      }
    }
    return message;
  }

  /**
   * Sign a token for run `runId` of `agentType`, valid for `ttlMs` and for the run's current generation (it must exist
   * in `runs`: a token of the run cleared and started again with the same id is refused).
   */
  async sign(
    runs: Pick<AgentToolRegistry, "getAgentToolRun">,
    agentType: string,
    runId: string,
    ttlMs = DEFAULT_RUN_TOKEN_TTL_MS,
  ): Promise<{ token: string; expiresAt: number }> {
    const misconfigured = this.configError();
    if (misconfigured) throw new AgentToolsError("INVALID_ARGUMENT", misconfigured);
    const run = await runs.getAgentToolRun(runId);
    if (run?.agentType !== agentType) {
      throw new AgentToolsError("INVALID_ARGUMENT", `This parent has no run "${runId}" of "${agentType}"`);
    }
    const key = await this.#keyOrNull();
    if (!key) {
      throw new AgentToolsError(
        "INVALID_ARGUMENT",
        `Run read tokens need a secret: set the ${RUN_TOKEN_SECRET_BINDING} binding or override runTokenSecret()`,
      );
    }
    const expiresAt = this.#options.clock.now() + ttlMs;
    const claims = { parentId: this.#options.parentId, agentType, runId, expiresAt, generation: run.startedAt };
    const token = await signRunReadToken(key, claims);
    return { token, expiresAt };
  }

  /** Check a token for run `runId` of `agentType` now; never throws (no secret, or a `configError()`: `forged`). */
  async check(token: string, agentType: string, runId: string): Promise<RunReadTokenCheck> {
    if (this.configError()) return { ok: false, refusal: "forged" };
    const key = await this.#keyOrNull();
    if (!key) return { ok: false, refusal: "forged" };
    const { parentId, clock } = this.#options;
    return verifyRunReadToken(key, token, { parentId, agentType, runId, now: clock.now() });
  }

  #keyOrNull(): Promise<RunReadTokenKey | null> {
    const secret = this.#options.secret();
    if (secret === undefined) return Promise.resolve(null);
    this.#key ??= importRunReadTokenKey(secret);
    return this.#key;
  }
}

/** The answer to a request whose run read token was refused: 401, or 403 for a token of another run or parent. */
export function runReadTokenRefused(refusal: RunReadTokenRefusal): Response {
  return new Response(`Run read token refused (${refusal})`, { status: runReadTokenStatus(refusal) });
}

/** The answer to a request that needs run read tokens while their secret is misconfigured: 500, saying what is wrong. */
export function runTokenConfigError(message: string): Response {
  return Response.json({ error: message, code: "CONFIG_ERROR" }, { status: 500 });
}
