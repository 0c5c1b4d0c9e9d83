// Small statistics helpers: medians with ranges, as the figures are quoted.

/** @param {number[]} values @param {number} q */
export function quantile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const lower = sorted[low] ?? 0;
  return lower + ((sorted[high] ?? lower) - lower) * (position - low);
}

/** @param {number | null | undefined} value */
export function round(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return value ?? null;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Median, p95, min, max and n; the samples too when there are few. @param {number[]} values */
export function describe(values) {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return { median: null, n: 0 };
  return {
    median: round(quantile(finite, 0.5)),
    p95: round(quantile(finite, 0.95)),
    min: round(Math.min(...finite)),
    max: round(Math.max(...finite)),
    n: finite.length,
    ...(finite.length <= 12 ? { samples: finite.map((value) => round(value)) } : {}),
  };
}

/** "12.3 [10.1–15.2]" for a description, or a plain number. */
export function cell(value, digits = 1) {
  if (value === null || value === undefined) return "n/a";
  if (typeof value === "number") return format(value, digits);
  if (value.median === null || value.median === undefined) return "n/a";
  return value.n > 1
    ? `${format(value.median, digits)} [${format(value.min, digits)}–${format(value.max, digits)}]`
    : format(value.median, digits);
}

function format(value, digits) {
  return Math.abs(value) >= 100 ? String(Math.round(value)) : String(round(value, digits));
}
