import { describe, expect, it } from "vitest";
import { MAX_APPROVAL_REASON_LENGTH, readApprovalReason } from "./approvals.js";

describe("readApprovalReason", () => {
  it("keeps a plain reason, trimmed", () => {
    expect(readApprovalReason("  Not that file  ")).toEqual({ ok: true, reason: "Not that file" });
  });

  it("turns line breaks and tabs into one space and removes every other control character", () => {
    expect(readApprovalReason("Not\r\nthat\tfile")).toEqual({ ok: true, reason: "Not that file" });
    // NUL, bell, escape, DEL, a C1 control, and the bidirectional overrides and isolates.
    const controls = "\u0000\u0007\u001b\u007f\u009b\u202e\u2066\u200f\u061c";
    expect(readApprovalReason(`${controls}No${controls}pe${controls}`)).toEqual({ ok: true, reason: "Nope" });
    // Unicode line and paragraph separators, and NEL, break lines too.
    expect(readApprovalReason("a\u2028b\u2029c\u0085d")).toEqual({ ok: true, reason: "a b c d" });
    // Letters, emoji and right-to-left text stay as they are.
    expect(readApprovalReason("Non, merci 🙅 שלום")).toEqual({ ok: true, reason: "Non, merci 🙅 שלום" });
  });

  it("reads no reason from nothing, a blank text, or control characters only", () => {
    expect(readApprovalReason(undefined)).toEqual({ ok: true });
    expect(readApprovalReason("   ")).toEqual({ ok: true });
    expect(readApprovalReason("\u0000\n\u0007\u202e")).toEqual({ ok: true });
  });

  it("refuses a reason longer than the limit once cleaned, and one that is not a string", () => {
    const longest = "y".repeat(MAX_APPROVAL_REASON_LENGTH);
    // Control characters and surrounding spaces do not count.
    expect(readApprovalReason(`\u0007 ${longest}\u0000\n`)).toEqual({ ok: true, reason: longest });
    expect(readApprovalReason(`${longest}y`)).toEqual({
      ok: false,
      error: `the reason is longer than ${MAX_APPROVAL_REASON_LENGTH} characters (${MAX_APPROVAL_REASON_LENGTH + 1})`,
    });
    expect(readApprovalReason(7)).toEqual({ ok: false, error: "the reason must be a string" });
    expect(readApprovalReason(null)).toEqual({ ok: false, error: "the reason must be a string" });
  });
});
