import { type AnomalyRaisedEvent, Subjects } from '@tm/contracts';
import { type SqlRunner, timeOrderedId } from '@tm/kit';
import {
  clearAnomalies,
  escalateAnomaly,
  type OpenAnomaly,
  openAnomalies,
  raiseAnomaly,
  tenantsToWatch,
} from '../data-access/raised-anomaly-repository.js';
import { judgeSignals, tenantSignals } from './detect-anomalies.js';
import type { AnomalyPolicy } from './thresholds.js';
import { lookback } from './time-window.js';

export interface AnomalyWatchOptions {
  policy: AnomalyPolicy;
  /** The window each pass judges, ending at the pass. */
  windowMinutes: number;
  exactPercentilesUpTo: number;
}

/**
 * One pass of the anomaly watch: every tenant with requests in the window, or with an
 * anomaly open, has its own signals judged as the anomalies route judges them (tenant scope only:
 * deployment-wide signals are the operator's, not a tenant's to act on). An anomaly found that is
 * not open is raised; an open warning found critical is escalated; an open anomaly no longer found is
 * cleared. Each raise and escalation commits its anomaly.raised event to the outbox in the same
 * statement, so the event exists exactly when the state changed. Returns what changed.
 */
export async function watchAnomalies(
  run: SqlRunner,
  options: AnomalyWatchOptions,
  now = new Date(),
): Promise<{ raised: number; escalated: number; cleared: number }> {
  const window = lookback(options.windowMinutes, now);
  const [tenants, open] = await Promise.all([tenantsToWatch(run, window.from), openAnomalies(run)]);
  const openOf = new Map<string, OpenAnomaly>(open.map((a) => [`${a.tenantId}\n${a.name}`, a]));
  const stillFound = new Set<string>();
  const changed = { raised: 0, escalated: 0, cleared: 0 };
  // One tenant at a time: a pass is background work, and its reads must not crowd out the routes'.
  for (const tenantId of tenants) {
    const { observed } = await tenantSignals(
      run,
      { tenantId, from: window.from, to: window.to },
      { minRequests: options.policy.minRequests, exactPercentilesUpTo: options.exactPercentilesUpTo },
    );
    for (const anomaly of judgeSignals(observed, options.policy, options.windowMinutes)) {
      const current = openOf.get(`${tenantId}\n${anomaly.name}`);
      if (current) stillFound.add(current.id);
      const eventId = timeOrderedId();
      const event = (anomalyId: string): AnomalyRaisedEvent => ({
        version: 'v1',
        event_id: eventId,
        tenant_id: tenantId,
        anomaly_id: anomalyId,
        name: anomaly.name,
        severity: anomaly.severity,
        observed: anomaly.observed,
        threshold: anomaly.threshold,
        unit: anomaly.unit,
        window_minutes: anomaly.window_minutes,
        occurred_at: now.toISOString(),
      });
      const outbox = (anomalyId: string) => ({
        id: eventId,
        subject: Subjects.telemetry.anomalyRaised,
        payload: event(anomalyId),
      });
      if (!current) {
        const id = timeOrderedId();
        const raised = await raiseAnomaly(run, { id, tenantId, ...anomaly }, now, outbox(id));
        if (raised) changed.raised++;
      } else if (current.severity === 'warning' && anomaly.severity === 'critical') {
        if (await escalateAnomaly(run, current.id, anomaly, outbox(current.id))) changed.escalated++;
      }
    }
  }
  changed.cleared = await clearAnomalies(
    run,
    open.filter((a) => !stillFound.has(a.id)).map((a) => a.id),
  );
  return changed;
}
