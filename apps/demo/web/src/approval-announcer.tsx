import type { AgentToolRunState } from "@agent-tools/react";
import { type ReactNode, useMemo } from "react";
import { approvalAsker } from "./approval-format.js";
import { runName } from "./format.js";

/**
 * What a screen reader is told of approvals: a polite live region, on the page from the start (so that what it says
 * later is announced), saying which approvals wait for an answer — who asks, for which tool. Each approval is said
 * once, on the run that shows it (a tree's approvals are shown on its top-level run).
 */
export function ApprovalAnnouncer({ runs }: { runs: readonly AgentToolRunState[] }): ReactNode {
  const text = useMemo(() => {
    const said = new Set<string>();
    const lines: string[] = [];
    for (const run of runs) {
      if (run.status !== "starting" && run.status !== "running") continue;
      for (const approval of run.approvals) {
        if (approval.status !== "pending" || said.has(approval.approvalId)) continue;
        said.add(approval.approvalId);
        lines.push(
          `${approvalAsker(runName(run), approval)} is waiting for your approval to run ${approval.toolName}.`,
        );
      }
    }
    return lines.join(" ");
  }, [runs]);
  return (
    <div className="announcer visually-hidden" aria-live="polite" aria-atomic="true">
      {text}
    </div>
  );
}
