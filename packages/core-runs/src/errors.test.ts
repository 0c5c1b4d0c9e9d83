import { describe, expect, it } from "vitest";
import { AgentToolsError, errorMessage, toAgentToolsError } from "./errors.js";

describe("AgentToolsError", () => {
  it("carries its code, message, name and cause", () => {
    const cause = new Error("socket closed");
    const error = new AgentToolsError("STORE_FAILED", "storage unreachable", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toBe("storage unreachable");
    expect(error.name).toBe("AgentToolsError");
    expect(error.cause).toBe(cause);
  });

  it("isInstance recognizes errors from another copy of the module by the symbol marker", () => {
    const fromAnotherCopy = { [Symbol.for("agent-tools.error")]: true, code: "INTERNAL", message: "x" };
    expect(AgentToolsError.isInstance(fromAnotherCopy)).toBe(true);
    expect(AgentToolsError.isInstance(new AgentToolsError("INTERNAL", "x"))).toBe(true);
  });

  it("isInstance rejects everything else", () => {
    for (const value of [
      new Error("x"),
      { code: "INTERNAL", message: "x" },
      { [Symbol("agent-tools.error")]: true },
      { [Symbol.for("agent-tools.error")]: "true" },
      "AgentToolsError",
      null,
      undefined,
      0,
    ]) {
      expect(AgentToolsError.isInstance(value)).toBe(false);
    }
  });
});

describe("toAgentToolsError", () => {
  it("returns an AgentToolsError unchanged", () => {
    const error = new AgentToolsError("INVALID_ARGUMENT", "bad option");
    expect(toAgentToolsError(error)).toBe(error);
    expect(toAgentToolsError(error, "STORE_FAILED")).toBe(error);
  });

  it("wraps anything else, keeping it as the cause", () => {
    const cause = new TypeError("bad");
    const wrapped = toAgentToolsError(cause);
    expect(AgentToolsError.isInstance(wrapped)).toBe(true);
    expect(wrapped.code).toBe("INTERNAL");
    expect(wrapped.message).toBe("bad");
    expect(wrapped.cause).toBe(cause);
  });

  it("uses the given code and keeps non-Error causes", () => {
    const wrapped = toAgentToolsError("disk full", "STORE_FAILED");
    expect(wrapped.code).toBe("STORE_FAILED");
    expect(wrapped.message).toBe("disk full");
    expect(wrapped.cause).toBe("disk full");
    const object = { status: 503 };
    expect(toAgentToolsError(object).cause).toBe(object);
  });
});

describe("errorMessage", () => {
  it("reads a message from anything thrown", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage(new RangeError(""))).toBe("RangeError");
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage({ status: 503 })).toBe('{"status":503}');
    expect(errorMessage(undefined)).toBe("undefined");
  });

  it("does not throw for values JSON cannot encode", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(errorMessage(cyclic)).toBe("[object Object]");
    expect(errorMessage(5n)).toBe("5");
  });
});
