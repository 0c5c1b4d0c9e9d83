/** The seed every property test runs with unless `FC_SEED` says otherwise: CI explores the same cases each time. */
export const DEFAULT_PROPERTY_SEED = 20_261_205;

/**
 * The fast-check seed of a test run, from `FC_SEED`: unset or empty, `DEFAULT_PROPERTY_SEED` (deterministic: the same
 * cases on every run and machine); an integer, that seed (to replay a failure: fast-check's report names the seed and
 * path, a test's own `seed` aside); `random`, a fresh seed (an exploration run, on demand). Anything else is an error
 * naming the variable, never a silent random run.
 */
export function propertySeed(env: Readonly<Record<string, string | undefined>>, random = Math.random): number {
  const value = env["FC_SEED"]?.trim() ?? "";
  if (value === "") return DEFAULT_PROPERTY_SEED;
  if (value === "random") return Math.floor(random() * 2 ** 32) - 2 ** 31;
  const seed = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(seed)) {
    throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(value)}`);
  }
  return seed;
}
