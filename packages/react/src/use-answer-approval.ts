"use client";

import { answerAgentToolApproval } from "@agent-tools/client";
import type { AgentToolApprovalAnswer, AgentToolApprovalRequest } from "@agent-tools/client/internal";
import { useCallback, useEffect, useRef } from "react";

/** Answer an approval of run `runId`'s tree; resolves whether this answer was taken (see `answerAgentToolApproval`). */
export type AnswerAgentToolApproval = (
  runId: string,
  approvalId: string,
  answer: AgentToolApprovalAnswer,
) => Promise<boolean>;

/** How the hooks send an approval's answer. */
export type AgentToolApprovalOptions = {
  /** The `fetch` answers are sent with (e.g. to add headers). Default: the global `fetch`. */
  fetch?: AgentToolApprovalRequest["fetch"];
};

/**
 * @internal An answer function for the parent at `parentUrl` (its event socket's URL; `null`: none known), stable
 * while the URL is the same (the latest `fetch` is used).
 */
export function useAnswerApproval(
  parentUrl: string | null,
  fetch: AgentToolApprovalRequest["fetch"],
): AnswerAgentToolApproval {
  const fetchRef = useRef(fetch);
  useEffect(() => {
    fetchRef.current = fetch;
  }, [fetch]);
  return useCallback(
    async (runId, approvalId, answer) => {
      if (parentUrl === null) {
        throw new Error(
          "answerApproval: no parent URL to answer at (give the hook `url` or `connection`; with `agent`, call answerAgentToolApproval with the parent's URL)",
        );
      }
      const current = fetchRef.current;
      return answerAgentToolApproval({
        url: parentUrl,
        runId,
        approvalId,
        ...answer,
        ...(current ? { fetch: current } : {}),
      });
    },
    [parentUrl],
  );
}
