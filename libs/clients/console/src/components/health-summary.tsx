import type { HealthReport } from '@text-memory/sdk';
import { formatCount } from '../insight/format.js';

type Reindex = NonNullable<HealthReport['services'][string]['reindex']>;

/** The deployment's readiness and each service's own report, as GET /api/v1/infrastructure/health gives. */
export function HealthSummary({ health }: { health: HealthReport }) {
  const reindex = health.services.memory?.reindex;
  return (
    <div className="card">
      <h2>
        Health <span className={`badge badge-${health.status}`}>{health.status}</span>
      </h2>
      <p>
        {health.available ? 'Writes can be served.' : 'Writes cannot be served right now.'} Version{' '}
        {health.deployment_version}, checked {new Date(health.checked_at).toLocaleTimeString()}.
      </p>
      <table>
        <caption className="visually-hidden">Services</caption>
        <thead>
          <tr>
            <th scope="col">Service</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(health.services).map(([name, service]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <span className={`badge badge-${service.available ? 'ok' : 'unavailable'}`}>
                  {service.available ? 'available' : 'unavailable'}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {reindex && reindex.namespaces_completed < reindex.namespaces_total && (
        <ReindexProgress reindex={reindex} />
      )}
    </div>
  );
}

/**
 * Namespaces written before recall matched on stems, re-indexed in the background: shown until all are
 * done. Those not yet indexed still rank by the old index (deterministic-lexical-v1).
 */
function ReindexProgress({ reindex }: { reindex: Reindex }) {
  const legacy = reindex.namespaces_pending + reindex.namespaces_indexing;
  return (
    <div aria-live="polite">
      <label htmlFor="reindex-progress">Re-index</label>
      <progress id="reindex-progress" max={Math.max(reindex.records_total, 1)} value={reindex.records_done}>
        {formatCount(reindex.records_done)} of {formatCount(reindex.records_total)}
      </progress>
      <p>
        {formatCount(reindex.records_done)} of {formatCount(reindex.records_total)} records re-indexed;{' '}
        {formatCount(reindex.namespaces_completed)} of {formatCount(reindex.namespaces_total)} namespaces
        done, {formatCount(reindex.namespaces_indexing)} indexing, {formatCount(reindex.namespaces_pending)}{' '}
        waiting, {formatCount(reindex.namespaces_cleaning)} removing old postings.
        {legacy > 0 && ` Recall in the ${formatCount(legacy)} not yet indexed still ranks by the old index.`}
      </p>
    </div>
  );
}
