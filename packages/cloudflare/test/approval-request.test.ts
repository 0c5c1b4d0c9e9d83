// What an approval answer's body may say (Node): { approved, reason? }; anything else is refused with why.
import { MAX_APPROVAL_REASON_LENGTH } from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { MAX_APPROVAL_BODY_BYTES, readApprovalRequest } from "../src/parent/approval-request.js";

const post = (body?: string) =>
  new Request("https://host/agents/parent/p/approve/r1/a1", {
    method: "POST",
    ...(body === undefined ? {} : { body }),
  });

describe("readApprovalRequest", () => {
  it("reads an approval, and a denial with its reason trimmed", async () => {
    expect(await readApprovalRequest(post('{"approved":true}'))).toEqual({ ok: true, answer: { approved: true } });
    expect(await readApprovalRequest(post(JSON.stringify({ approved: false, reason: " not today \n" })))).toEqual({
      ok: true,
      answer: { approved: false, reason: "not today" },
    });
    // Control characters are removed (a line break becomes a space), as the client and the runner do.
    const noisy = JSON.stringify({ approved: false, reason: "Not\u0000 that\u0007\r\nfile\u202e" });
    expect(await readApprovalRequest(post(noisy))).toEqual({
      ok: true,
      answer: { approved: false, reason: "Not that file" },
    });
    // The limit counts the reason, not the spaces around it (as the client does).
    const longest = "y".repeat(MAX_APPROVAL_REASON_LENGTH);
    expect(await readApprovalRequest(post(JSON.stringify({ approved: false, reason: ` ${longest}\n` })))).toEqual({
      ok: true,
      answer: { approved: false, reason: longest },
    });
  });

  it("refuses no answer, a non-boolean, an unknown field, a bad reason, saying why", async () => {
    const cases: Array<[string | undefined, RegExp]> = [
      [undefined, /approved must be true or false/],
      ["{}", /approved must be true or false/],
      ['{"approved":"yes"}', /approved must be true or false/],
      ['{"approve":true}', /unknown field approve/],
      ['{"approved":false,"reason":7}', /non-empty string/],
      ['{"approved":false,"reason":"  "}', /non-empty string/],
      [JSON.stringify({ approved: false, reason: "x".repeat(MAX_APPROVAL_REASON_LENGTH + 1) }), /longer than 500/],
      ["approved", /not JSON/],
      ["[true]", /not a JSON object/],
    ];
    for (const [body, error] of cases) {
      const read = await readApprovalRequest(post(body));
      expect(read).toMatchObject({ ok: false, status: 400 });
      expect(read.ok ? "" : read.error).toMatch(error);
    }
  });

  it("refuses a body over the limit with 413", async () => {
    const body = JSON.stringify({ approved: true, pad: "x".repeat(MAX_APPROVAL_BODY_BYTES) });
    expect(await readApprovalRequest(post(body))).toMatchObject({ ok: false, status: 413 });
  });
});
