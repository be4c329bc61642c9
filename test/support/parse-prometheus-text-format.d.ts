/** The few types the tests use of `parse-prometheus-text-format`, which ships none. */
declare module 'parse-prometheus-text-format' {
  /** One sample, or a histogram's buckets, count and sum; every number as the text it was written as. */
  export interface PrometheusSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }

  /** A metric family: the samples under one `# HELP` and `# TYPE`. */
  export interface PrometheusFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PrometheusSample[];
  }

  /** Parses the Prometheus text format; throws on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
