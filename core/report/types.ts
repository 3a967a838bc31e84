import type { MetricName } from '../metrics/per_query.ts';
import type { DeceptionRecord } from '../deception/per_query.ts';

/** One query under one configuration: every metric and the deception record. */
export interface QueryScore {
  query_id: string;
  domain: string | null;
  metrics: Record<MetricName, number>;
  deception: DeceptionRecord;
}

/** All queries of one configuration, in the benchmark's query order (the same order for every config). */
export interface ConfigScores {
  config_id: string;
  queries: QueryScore[];
}
