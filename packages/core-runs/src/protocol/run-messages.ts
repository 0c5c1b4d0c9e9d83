/**
 * The id of the assistant message a run's turn makes (the child's answer): the same in the child's conversation, an
 * inspection, a drill-in and the parent's view of the run, so a client can merge them.
 * @experimental
 */
export function outputMessageId(runId: string): string {
  return `agent-tool-${runId}-output`;
}
