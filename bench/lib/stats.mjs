/**
 * Latency summaries. Percentiles use the nearest-rank method on the sorted
 * samples, so p99 of 200 samples is the second-slowest call, not an
 * interpolation.
 */

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** {n, p50, p95, p99, mean, max} in milliseconds, or null for no samples. */
export function summarize(samples) {
  const values = samples.filter((v) => typeof v === "number" && Number.isFinite(v));
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 1000) / 1000;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
    max: round(sorted[sorted.length - 1]),
  };
}

/** The distinct non-zero gaps between values: the clock's apparent resolution. */
export function resolution(samples) {
  const sorted = [...new Set(samples.filter(Number.isFinite))].sort((a, b) => a - b);
  let smallest = Infinity;
  for (let i = 1; i < sorted.length; i++) smallest = Math.min(smallest, sorted[i] - sorted[i - 1]);
  const fractional = samples.some((v) => Number.isFinite(v) && !Number.isInteger(v));
  return { smallestStepMs: Number.isFinite(smallest) ? smallest : null, fractional };
}
