/** What an embed worker says of a configuration (activities/embeddings/sendActivities.ts `embedAvailability`). */
export interface SaidAvailable {
  config_id: string;
  ok: boolean;
  detail: string;
}

interface PlanLike {
  config: { config_id: string };
  status: string;
  reason: string | null;
  batches: readonly unknown[];
}

/**
 * The sweep's plan with what an embed worker said it can run: a ready configuration it cannot run (no key, no
 * model, a server that does not list the model) becomes `unavailable` with the reason and gets no ranges. Asked
 * of the embed queue because keys and models are where the sends happen, not on the coordinator.
 */
export function withAvailability<P extends PlanLike>(configs: readonly P[], said: readonly SaidAvailable[]): P[] {
  const by = new Map(said.map((a) => [a.config_id, a]));
  return configs.map((p) => {
    const a = by.get(p.config.config_id);
    return p.status === 'ready' && a && !a.ok ? { ...p, status: 'unavailable', reason: a.detail, batches: [] } : p;
  });
}
