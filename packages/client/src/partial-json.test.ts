import { parsePartialJson } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readPartialJson } from "./partial-json.js";

/** Every prefix of `text` reads as the AI SDK's `parsePartialJson` reads it. */
async function expectEveryPrefixAsSdk(text: string) {
  for (let end = 0; end <= text.length; end++) {
    const prefix = text.slice(0, end);
    const expected = await parsePartialJson(prefix);
    expect(readPartialJson(prefix), `prefix ${JSON.stringify(prefix)}`).toEqual(expected.value);
  }
}

const isPlainKey = (key: string) => !key.includes('"') && !key.includes("\\");

/** Leaves: numbers whose text has no exponent with a `+` (see the known difference below), any strings. */
const leaf = fc.oneof(
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: "binary", maxLength: 6 }),
);
const { value: jsonValue } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    // Keys without `"` or `\\` (see the known differences below).
    object: fc.dictionary(fc.string({ unit: "grapheme-ascii", maxLength: 4 }).filter(isPlainKey), tie("value"), {
      maxKeys: 4,
    }),
  }),
);

/** JSON texts as a model writes them: any value, with or without spaces between tokens. */
const jsonText = fc
  .tuple(jsonValue, fc.constantFrom(undefined, 1, "\t"))
  .map(([value, space]) => JSON.stringify(value, null, space));

describe("readPartialJson: the value a streamed JSON text holds so far, as the AI SDK reads it", () => {
  it("reads every prefix of JSON texts as the SDK's parsePartialJson does", async () => {
    for (const text of [
      '{"query":"cats","limit":3,"tags":["a","b"],"deep":{"ok":true,"none":null,"n":-1.5e3},"s":"a\\"b\\u00e9\\n"}',
      '[1, 2.5, -3e-2, "x", [true, false, null], {"k": [{}]}]',
      '"just a string with \\\\ backslash"',
      '  {  "spaced"  :  [ 1 , 2 ]  }  ',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"a":{"constructor":{"x":1,"prototype":2}},"b":[{"__proto__":[]}]}',
      '[-0.0e-0, 0.5, 1E2, "\\/\\b\\f\\r\\t\\ud83d\\ude00"]',
    ]) {
      await expectEveryPrefixAsSdk(text);
    }
  });

  // CPU-heavy (every prefix of 150 generated texts, each through the SDK): a time budget of its own.
  it("reads every prefix of any JSON text as the SDK does", { timeout: 60_000 }, async () => {
    await fc.assert(fc.asyncProperty(jsonText, expectEveryPrefixAsSdk), { numRuns: 150 });
  });

  it("never sets a prototype, and reads text that cannot start a JSON text as nothing", () => {
    const read = readPartialJson('{"__proto__":{"polluted":true}}');
    expect(read).toBeUndefined();
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    for (const text of ["x", '{"a" 1', "[1 2", '{"a":tx', "01", '{"a":1}x', '"\u0001"', '"\\x"']) {
      expect(readPartialJson(text), text).toBeUndefined();
    }
  });

  // The known differences, where the SDK's own repair of the text reads less than the text holds.
  it("reads a number cut in an exponent with a `+` as the number so far, in an object too (the SDK stops at its `e`)", async () => {
    expect(readPartialJson('{"a":1e+5')).toEqual({ a: 1e5 });
    expect(readPartialJson("[1e+5")).toEqual([1e5]);
    expect((await parsePartialJson('{"a":1e+5')).value).toEqual({ a: 1 });
    expect((await parsePartialJson("[1e+5")).value).toEqual([1e5]);
  });

  it("reads a key with an escaped quote as the key (the SDK reads nothing when a `:` follows the quote)", async () => {
    expect(readPartialJson('{"x":{"\\":"')).toEqual({ x: {} });
    expect(readPartialJson('{"\\":":1}')).toEqual({ '":': 1 });
    expect((await parsePartialJson('{"x":{"\\":"')).value).toBeUndefined();
  });
});
