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

/**
 * The interquartile mean: the mean of the middle half of the values (the lowest and highest quarter dropped). In-DO
 * times are whole milliseconds (`Date.now()` in workerd), so a median of them moves in steps of 1 ms; their mean
 * resolves finer (a run of 6.4 ms reads 6 or 7), and dropping the quarters keeps it as robust to outliers as a median.
 * @param {number[]} values
 */
export function interquartileMean(values) {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (finite.length === 0) return null;
  const quarter = Math.floor(finite.length / 4);
  const middle = finite.slice(quarter, finite.length - quarter);
  return middle.reduce((sum, value) => sum + value, 0) / middle.length;
}

/**
 * Ratios of values taken in the same round (a[i] ÷ b[i]: measured one right after the other, so the machine's load
 * of that moment weighs on both), summarized: median [min–max]. Rounds missing either value are skipped.
 * @param {number[]} a @param {number[]} b
 */
export function pairedRatios(a, b) {
  const ratios = [];
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const x = a[index];
    const y = b[index];
    if (Number.isFinite(x) && Number.isFinite(y) && y !== 0)
      ratios.push(/** @type {number} */ (x) / /** @type {number} */ (y));
  }
  return describe(ratios);
}
