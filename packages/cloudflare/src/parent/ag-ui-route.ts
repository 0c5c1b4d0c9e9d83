import { agUiEventStream, readAgUiRunInput } from "@agent-tools/ag-ui";
import { systemClock } from "@agent-tools/core-runs";
import type { AgentToolApprovalAnswer } from "@agent-tools/core-runs/protocol";
import { type AgUiOptions, AgUiStreams, agUiStreamsOf } from "../ag-ui/ag-ui-streams.js";
import { type AgUiParentParts, ParentAgUiSources } from "../ag-ui/parent-sources.js";
import { readApprovalAnswer } from "./approval-request.js";
import { PARENT_PATH_SEGMENTS } from "./parent-routes.js";
import { badBody, readJsonObjectBody } from "./request-body.js";

/** The header (and query parameter) a resumed AG-UI stream names its last event with. */
const LAST_EVENT_ID = "Last-Event-ID";

/** The largest `POST …/ag-ui` body (AG-UI's `HttpAgent` sends the messages it holds with every run): 8 MiB. */
export const MAX_AG_UI_BODY_BYTES = 8 * 1024 * 1024;

const RUN_INPUT_SHAPE = "send an AG-UI RunAgentInput (@ag-ui/client's HttpAgent does), or no body";

/** The answer an approval gets from a resume entry that abandons it (`status: "cancelled"`). */
const CANCELLED_REASON = "The request was cancelled";

/**
 * `GET …/ag-ui` (or `POST`): the parent's conversation and runs, at every depth, as an AG-UI event stream
 * (`@agent-tools/ag-ui`), from where the client stopped (`Last-Event-ID`, or `?cursor=`), then live until the client
 * goes (`?follow=false`: only what is there now). The thread is the parent's name. A `POST` whose body is an AG-UI
 * `RunAgentInput` with `resume` entries answers the approvals they name — as `POST …/approve/<runId>/<approvalId>`
 * does — and streams what follows as that input's run, ending with it. Past `maxStreams` open streams: 429.
 * @internal
 */
export async function serveAgUi(
  request: Request,
  parts: AgUiParentParts,
  options: Required<AgUiOptions>,
): Promise<Response> {
  const url = new URL(request.url);
  const name = url.pathname.split("/").filter((segment) => segment !== "")[PARENT_PATH_SEGMENTS - 1] ?? "";
  const { registry } = parts;
  let run: {
    runId: string;
    answers: Array<{ runId: string; approvalId: string; answer: AgentToolApprovalAnswer }>;
  } | null = null;
  if (request.method === "POST") {
    const body = await readJsonObjectBody(request, RUN_INPUT_SHAPE, MAX_AG_UI_BODY_BYTES);
    if (!body.ok) return badBody(body);
    if (body.value !== null) {
      const input = readAgUiRunInput(body.value);
      if (!input.ok) return badBody({ status: 400, error: input.error });
      const answers = [];
      for (const entry of input.request.approvals) {
        // Only in this parent's own runs, as the approve route.
        if (!(await registry.getAgentToolRun(entry.runId))) {
          return badBody({ status: 400, error: `No approval "${entry.interruptId}" in this agent's runs` });
        }
        const read =
          entry.status === "cancelled"
            ? ({ ok: true, answer: { approved: false, reason: CANCELLED_REASON } } as const)
            : readApprovalAnswer(entry.payload ?? null);
        if (!read.ok) return badBody({ status: read.status, error: `resume ${entry.interruptId}: ${read.error}` });
        answers.push({ runId: entry.runId, approvalId: entry.approvalId, answer: read.answer });
      }
      if (answers.length > 0) run = { runId: input.request.runId, answers };
    }
  }
  const streams = agUiStreamsOf(parts.events);
  const place = streams.take(options.maxStreams);
  if (!place) {
    return Response.json(
      {
        error: `Too many AG-UI streams are open on this agent (${options.maxStreams}): close one, or try again later`,
        code: "LIMIT_EXCEEDED",
      },
      { status: 429 },
    );
  }
  const follow = run !== null || url.searchParams.get("follow") !== "false";
  const sources = new ParentAgUiSources(parts, { follow });
  const answers = run?.answers ?? [];
  const stream = agUiEventStream({
    threadId: decodeURIComponent(name),
    cursor: request.headers.get(LAST_EVENT_ID) ?? url.searchParams.get("cursor"),
    store: streams.store,
    // The turn in flight's answer streams in (the parent follows it as a tab does).
    followsAnswer: true,
    signal: request.signal,
    // A client that leaves aborts the request (with `enable_request_signal`); else the stream ends at the latest after
    // `maxStreamMs`.
    keepAlive: { clock: systemClock, heartbeatMs: options.heartbeatMs, maxDurationMs: options.maxStreamMs },
    replay: (push, from) => sources.replay(push, from),
    ...(follow ? { follow: (push) => sources.follow(push) } : {}),
    ...(run
      ? {
          run: {
            runId: run.runId,
            // The same answer the approve route gives: once; answering again changes nothing.
            start: async () => {
              for (const { runId, approvalId, answer } of answers) {
                await registry.answerApproval(runId, approvalId, answer);
              }
            },
          },
        }
      : {}),
  });
  return new Response(AgUiStreams.counted(stream, place), {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" },
  });
}
