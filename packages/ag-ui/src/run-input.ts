import type { ResumeEntry, RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { parseApprovalInterruptId } from "./interrupts.js";

/** What a client's `RunAgentInput` asks of a parent's AG-UI stream. */
export type AgUiRunRequest = {
  /** The AG-UI run the client starts (its events carry this id). */
  runId: string;
  /** Its answers to the approvals it was asked (interrupts it resumes that are no approvals are left out). */
  approvals: AgUiApprovalAnswer[];
  input: RunAgentInput;
};

/**
 * One resume entry that answers an approval: which, and what it says (`payload` as the client sent it).
 *
 * @experimental New API: it may change without a major version.
 */
export type AgUiApprovalAnswer = {
  interruptId: string;
  runId: string;
  approvalId: string;
  status: ResumeEntry["status"];
  payload: unknown;
};

/**
 * Read a `RunAgentInput` (a `POST …/ag-ui` body, as `@ag-ui/client`'s `HttpAgent` sends it) with `@ag-ui/core`'s
 * schema: the run it starts and the approvals its `resume` entries answer; or, for anything else, why not (a message
 * for the client). Never throws.
 *
 * @experimental New API: it may change without a major version.
 */
export function readAgUiRunInput(value: unknown): { ok: true; request: AgUiRunRequest } | { ok: false; error: string } {
  const parsed = RunAgentInputSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    return { ok: false, error: `The body is not an AG-UI RunAgentInput${where}: ${issue?.message ?? "invalid"}` };
  }
  const input = parsed.data as RunAgentInput;
  const approvals = (input.resume ?? []).flatMap((entry): AgUiApprovalAnswer[] => {
    const approval = parseApprovalInterruptId(entry.interruptId);
    return approval
      ? [{ interruptId: entry.interruptId, ...approval, status: entry.status, payload: entry.payload }]
      : [];
  });
  return { ok: true, request: { runId: input.runId, approvals, input } };
}
