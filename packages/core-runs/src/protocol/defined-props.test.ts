import { describe, expect, it } from "vitest";
import { definedProps } from "./defined-props.js";

describe("definedProps", () => {
  it("keeps the fields that are not undefined (null, 0, false and '' included), in their order", () => {
    const fields = definedProps({ a: 1, b: undefined, c: null, d: 0, e: false, f: "" });
    expect(fields).toEqual({ a: 1, c: null, d: 0, e: false, f: "" });
    expect(Object.keys(fields)).toEqual(["a", "c", "d", "e", "f"]);
    expect("b" in fields).toBe(false);
  });

  it("keeps a __proto__ key as an own field, never as the prototype", () => {
    const fields = definedProps(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.hasOwn(fields, "__proto__")).toBe(true);
  });
});
