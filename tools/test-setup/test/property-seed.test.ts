import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROPERTY_SEED, propertySeed } from "../src/property-seed.js";

describe("propertySeed (FC_SEED)", () => {
  it("is the fixed default when FC_SEED is unset or empty", () => {
    expect(propertySeed({})).toBe(DEFAULT_PROPERTY_SEED);
    expect(propertySeed({ FC_SEED: " " })).toBe(DEFAULT_PROPERTY_SEED);
  });

  it("is the integer FC_SEED gives, negative included (fast-check reports such seeds)", () => {
    expect(propertySeed({ FC_SEED: "-787664938" })).toBe(-787664938);
    expect(propertySeed({ FC_SEED: "42" })).toBe(42);
  });

  it("is a fresh 32-bit seed for FC_SEED=random", () => {
    expect(propertySeed({ FC_SEED: "random" }, () => 0)).toBe(-(2 ** 31));
    expect(propertySeed({ FC_SEED: "random" }, () => 0.5)).toBe(0);
  });

  it("refuses anything else, naming the variable", () => {
    for (const value of ["1.5", "abc", "12x", "99999999999999999999"]) {
      expect(() => propertySeed({ FC_SEED: value })).toThrow(/FC_SEED must be an integer or "random"/);
    }
  });

  it("is the seed fast-check runs with in every test file (the setup file)", () => {
    expect(fc.readConfigureGlobal().seed).toBe(propertySeed(process.env));
    const first: number[] = [];
    fc.assert(
      fc.property(fc.integer(), (value) => {
        first.push(value);
      }),
      { numRuns: 5 },
    );
    const second: number[] = [];
    fc.assert(
      fc.property(fc.integer(), (value) => {
        second.push(value);
      }),
      { numRuns: 5 },
    );
    // Without a seed each run draws its own (from the time): the same values twice show the one seed.
    expect(second).toEqual(first);
  });
});
