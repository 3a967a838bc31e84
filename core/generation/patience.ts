/**
 * --provider-patience: how long one generation attempt keeps retrying provider errors (429, 5xx, timeouts,
 * connection loss) before it ends as `provider_error`. Minutes, not seconds: a 429 storm or a provider incident
 * lasts that long, and waiting costs nothing while an attempt spent on the network is one the model never gets.
 */
export const DEFAULT_PROVIDER_PATIENCE_MS = 10 * 60_000;

/** "90", "90s", "5m", "1h", "1500ms" → milliseconds (a bare number is seconds); null when unreadable. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}
