import { getMetricsFromIterator, PromMetric } from 'prom2javascript';

/** One metric family of a scrape, as prom2javascript parses the Prometheus text format. */
export interface MetricFamily extends PromMetric {
  name: string;
  /** Every series: labels with a value (counter, gauge) or a count (histogram, summary). */
  series: Array<{ labels: Record<string, string>; value: number }>;
}

/** A scrape, parsed: families by name. */
export async function parseMetrics(text: string): Promise<Map<string, MetricFamily>> {
  // prom-client writes NaN (as "Nan") for a gauge with no sample yet, e.g. the event-loop lag right
  // after start; Prometheus reads it (Go's ParseFloat ignores case) but prom2javascript reads no NaN
  // at all, so those samples are left out (no assertion reads them)
  const lines = text.split('\n').filter((l) => !/ nan$/i.test(l));
  const parsed = await getMetricsFromIterator(lines[Symbol.iterator]());
  return new Map(
    Object.entries(parsed).map(([name, m]) => [
      name,
      {
        ...m,
        name,
        series: (m.data as Array<{ labels: Record<string, string>; value?: number; count?: number }>).map((d) => ({
          labels: d.labels,
          value: Number(d.value ?? d.count ?? 0),
        })),
      },
    ]),
  );
}

const matches = (labels: Record<string, string>, want: Record<string, string>) => Object.entries(want).every(([k, v]) => labels[k] === v);

/**
 * The value of a series — a counter's or gauge's value, a histogram's count — summed over the
 * series whose labels include `labels`; 0 when there is none.
 */
export function sample(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  return (families.get(name)?.series ?? []).filter((s) => matches(s.labels, labels)).reduce((n, s) => n + s.value, 0);
}
