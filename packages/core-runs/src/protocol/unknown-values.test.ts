import { describe, expect, it } from "vitest";
import { isObject, stringifyForText } from "./unknown-values.js";

describe("isObject", () => {
  it("is true for records only: not null, an array or a primitive", () => {
    expect([{}, { a: 1 }, Object.create(null)].map(isObject)).toEqual([true, true, true]);
    expect([null, undefined, [], [1], "x", 1, true].map(isObject)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("stringifyForText", () => {
  it("keeps a string, writes JSON (indented when asked), and falls back to String where JSON cannot carry the value", () => {
    expect(stringifyForText("as is")).toBe("as is");
    expect(stringifyForText({ a: [1] })).toBe('{"a":[1]}');
    expect(stringifyForText({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
    expect(stringifyForText(undefined)).toBe("undefined");
    expect(stringifyForText(10n)).toBe("10");
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    expect(stringifyForText(cycle)).toBe("[object Object]");
  });
});
