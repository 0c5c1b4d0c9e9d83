import { describe, expect, it } from "vitest";
import { INPUT_PREVIEW_MAX_CHARS, inputByteLength, makeInputPreview } from "./input-preview.js";

const cyclic = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { name: "loop" };
  value["self"] = value;
  return value;
};

describe("makeInputPreview", () => {
  it("keeps a short string as is", () => {
    expect(makeInputPreview("find the thing")).toBe("find the thing");
    expect(makeInputPreview("")).toBe("");
  });

  it("cuts strings at 500 characters", () => {
    expect(INPUT_PREVIEW_MAX_CHARS).toBe(500);
    expect(makeInputPreview("a".repeat(500))).toBe("a".repeat(500));
    expect(makeInputPreview("a".repeat(501))).toBe("a".repeat(500));
    expect(makeInputPreview(`${"b".repeat(499)}xyz`)).toBe(`${"b".repeat(499)}x`);
  });

  it("previews other values as JSON", () => {
    expect(makeInputPreview({ query: "cats", limit: 3 })).toBe('{"query":"cats","limit":3}');
    expect(makeInputPreview([1, "two"])).toBe('[1,"two"]');
    expect(makeInputPreview(42)).toBe("42");
    expect(makeInputPreview(null)).toBe("null");
    expect(makeInputPreview(true)).toBe("true");
  });

  it("cuts JSON at 500 characters", () => {
    const preview = makeInputPreview({ text: "z".repeat(1000) });
    expect(preview).toHaveLength(500);
    expect(preview.startsWith('{"text":"zzz')).toBe(true);
  });

  it("does not throw for values JSON cannot encode", () => {
    expect(() => makeInputPreview(cyclic())).not.toThrow();
    expect(makeInputPreview(cyclic())).toBe("[object Object]");
    expect(makeInputPreview(10n)).toBe("10");
    expect(makeInputPreview(undefined)).toBe("undefined");
  });
});

describe("inputByteLength", () => {
  it("counts UTF-8 bytes of a string, not characters", () => {
    expect(inputByteLength("abc")).toBe(3);
    expect(inputByteLength("é")).toBe(2);
    expect(inputByteLength("€")).toBe(3);
    expect(inputByteLength("😀")).toBe(4);
    expect(inputByteLength("")).toBe(0);
  });

  it("counts the UTF-8 bytes of other values' JSON", () => {
    // {"a":"é"} is 9 characters, 10 bytes.
    expect(inputByteLength({ a: "é" })).toBe(10);
    expect(inputByteLength([1, 2])).toBe(5);
    expect(inputByteLength(null)).toBe(4);
  });

  it("counts a value with no JSON form as 0", () => {
    expect(inputByteLength(undefined)).toBe(0);
  });

  it("returns null for values that cannot be serialized", () => {
    expect(inputByteLength(cyclic())).toBeNull();
    expect(inputByteLength({ big: 1n })).toBeNull();
  });
});
