/**
 * The one-line time breakdown `build` and `score` end with (and write next to their outputs): the phases in
 * the order they ran, then what the execution oracle did. A phase's seconds are its own wall time, except
 * where phases overlap, which the caller names in the phase (`canonicals (overlapping)`).
 */
export interface TimeBreakdown {
  /** [phase, seconds], in order. */
  phases: [string, number][];
  total_s: number;
  executions: {
    /** Judged without running (scoring's not_defined). */
    skipped: number;
    run: number;
    cached: number;
    /** Wall time of the run suites, summed (several run at once: this exceeds the phases' time). */
    run_suite_s: number;
  };
}

const secs = (s: number) => `${s.toFixed(1)} s`;
const int = (n: number) => n.toLocaleString('en-US');

export function formatBreakdown(b: TimeBreakdown): string {
  const e = b.executions;
  const phases = b.phases.map(([name, s]) => `${name} ${secs(s)}`).join(', ');
  return `time: ${phases}; total ${secs(b.total_s)} | executions: ${int(e.skipped)} skipped, ${int(e.run)} run (${secs(e.run_suite_s)} of suites), ${int(e.cached)} cached`;
}
