/**
 * Framework-free assertions for contract cases. They use neither vitest nor `node:assert`, so a contract suite can
 * run anywhere JavaScript runs (Node under vitest, or inside workerd from a Durable Object).
 */

const MAX_SHOWN_CHARS = 2000;

/**
 * Thrown by the `assert*` helpers. Carries `actual` and `expected` (and `showDiff`), which test runners such as
 * vitest use to print a diff; its message alone names both values as JSON, for runners that print only messages.
 */
export class ContractAssertionError extends Error {
  override readonly name = "ContractAssertionError";
  readonly actual: unknown;
  readonly expected: unknown;
  readonly showDiff: boolean;

  constructor(message: string, details: { actual?: unknown; expected?: unknown; showDiff?: boolean } = {}) {
    super(message);
    this.actual = details.actual;
    this.expected = details.expected;
    this.showDiff = details.showDiff ?? false;
  }
}

/**
 * Assert that `actual` deeply equals `expected`, throwing a `ContractAssertionError` otherwise.
 *
 * Equality is structural and strict: primitives compare with `Object.is`; arrays element by element with equal
 * lengths; plain objects by the same set of own enumerable keys (a key holding `undefined` differs from a missing
 * key) and equal values. Anything else (class instances, `Map`s, `Date`s) is equal only to itself: contract values
 * are JSON.
 * The message is `message`, the path of the first difference, and both values as JSON (truncated when long).
 */
export function assertEqual(actual: unknown, expected: unknown, message: string): void {
  const difference = findDifference(actual, expected, "$");
  if (difference === null) return;
  throw new ContractAssertionError(
    `${message}: values differ at ${difference}\n  expected: ${show(expected)}\n  actual:   ${show(actual)}`,
    { actual, expected, showDiff: true },
  );
}

/** Assert that `value` is truthy, throwing a `ContractAssertionError` with `message` (and the value) otherwise. */
export function assertTrue(value: unknown, message: string): asserts value {
  if (value) return;
  throw new ContractAssertionError(`${message} (got ${show(value)})`, { actual: value });
}

/**
 * Assert that `promise` rejects (or that `action` throws or returns a promise that rejects), and return the
 * rejection reason. Resolving instead throws a `ContractAssertionError` showing the resolved value.
 */
export async function assertRejects(
  promise: Promise<unknown> | (() => Promise<unknown>),
  message: string,
): Promise<unknown> {
  let value: unknown;
  try {
    value = await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    return error;
  }
  throw new ContractAssertionError(`${message}: expected a rejection, but it resolved with ${show(value)}`, {
    actual: value,
  });
}

/** The path of the first difference between the two values, or `null` when they are deeply equal. */
function findDifference(actual: unknown, expected: unknown, path: string): string | null {
  if (Object.is(actual, expected)) return null;
  if (typeof actual !== "object" || typeof expected !== "object" || actual === null || expected === null) {
    return path;
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected)) return path;
    if (actual.length !== expected.length) return `${path}.length`;
    for (let index = 0; index < expected.length; index++) {
      const difference = findDifference(actual[index], expected[index], `${path}[${index}]`);
      if (difference !== null) return difference;
    }
    return null;
  }
  if (!isPlainObject(actual) || !isPlainObject(expected)) {
    // Class instances, Maps, Dates: equal only by reference, already checked above.
    return path;
  }
  const actualKeys = Object.keys(actual);
  const expectedKeys = Object.keys(expected);
  for (const key of expectedKeys) {
    if (!Object.hasOwn(actual, key)) return `${path}.${key} (missing)`;
  }
  for (const key of actualKeys) {
    if (!Object.hasOwn(expected, key)) return `${path}.${key} (unexpected)`;
  }
  for (const key of expectedKeys) {
    const difference = findDifference(actual[key], expected[key], `${path}.${key}`);
    if (difference !== null) return difference;
  }
  return null;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** JSON for messages; `undefined`, bigints and cycles still print something useful. */
function show(value: unknown): string {
  let text: string;
  try {
    text =
      value === undefined
        ? "undefined"
        : (JSON.stringify(value, (_key, item: unknown) =>
            item === undefined ? "[undefined]" : typeof item === "bigint" ? `${item}n` : item,
          ) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}… (${text.length} chars)` : text;
}
