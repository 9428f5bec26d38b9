import { Link } from 'react-router';
import { ErrorNotice } from '../components/error-notice.js';
import { HealthSummary } from '../components/health-summary.js';
import { Page } from '../components/page.js';
import { useLoad } from '../hooks/use-load.js';
import { AnomalyList } from '../insight/anomaly-list.js';
import { LatencyTable } from '../insight/latency-table.js';
import { RequestCharts } from '../insight/request-charts.js';
import type { MetricsAnswer } from '../insight/series.js';
import { UsageTotals } from '../insight/usage-totals.js';
import { useSession } from '../session/session-context.js';
import { SmokeTestSection } from './overview/smoke-test-section.js';

/** The longest window the usage route reads (30 days): "to date" as far as the ledger is asked. */
const USAGE_TO_DATE_MINUTES = 43_200;

/** Health, what needs attention (anomalies), the last hour's traffic and what it has cost. */
export function OverviewPage() {
  const { client, can } = useSession();
  const health = useLoad((signal) => client.infrastructure.health({ signal }), [client]);
  const status = useLoad((signal) => client.infrastructure.status({ signal }), [client]);
  const metrics = useLoad(
    (signal): Promise<MetricsAnswer | undefined> =>
      can('telemetry:read')
        ? client.infrastructure.metrics({ window_minutes: 60 }, { signal })
        : Promise.resolve(undefined),
    [client],
  );
  const usage = useLoad(
    (signal) =>
      can('usage:read')
        ? client.control.usage({ window_minutes: USAGE_TO_DATE_MINUTES }, { signal })
        : Promise.resolve(undefined),
    [client],
  );
  const monitoring = status.data?.monitoring;

  return (
    <Page
      title="Overview"
      summary="The deployment's health, what needs attention, and what the last hour cost."
    >
      {/* First: a new user's question is how to call the service at all. */}
      <section className="card" aria-labelledby="overview-connect">
        <h2 id="overview-connect">Connect an app</h2>
        <p>
          Your apps reach this deployment at <code>{window.location.origin}</code>.{' '}
          <Link to="/connect">Snippets for the TypeScript and Python SDKs, the CLI and MCP</Link>, ready to
          copy.
        </p>
      </section>
      <ErrorNotice error={health.error ?? status.error} />
      {health.loading && !health.data && <p aria-live="polite">Loading…</p>}
      {health.data && <HealthSummary health={health.data} />}
      {/* Under health: it answers the same question by doing a write; the route needs memory:write, not an owner. */}
      {can('memory:write') && <SmokeTestSection />}
      {monitoring && (
        <section className="card" aria-labelledby="overview-anomalies">
          <h2 id="overview-anomalies">
            Anomalies <span className={`badge badge-${monitoring.state}`}>{monitoring.state}</span>
          </h2>
          {monitoring.state === 'unavailable' ? (
            <p>Telemetry did not answer, so anomalies cannot be judged right now.</p>
          ) : (
            <AnomalyList
              anomalies={monitoring.anomalies}
              windowLabel={`last ${monitoring.window_minutes} min`}
            />
          )}
        </section>
      )}
      <ErrorNotice error={metrics.error} />
      {metrics.data && (
        <section aria-labelledby="overview-traffic">
          <h2 id="overview-traffic">Traffic in the last hour</h2>
          <RequestCharts metrics={metrics.data} />
          <div className="card">
            {metrics.data.latency.length === 0 ? (
              <p>No requests in the last hour.</p>
            ) : (
              <LatencyTable
                latency={metrics.data.latency}
                caption="Requests per operation in the last hour"
              />
            )}
          </div>
        </section>
      )}
      <ErrorNotice error={usage.error} />
      {usage.data && (
        <section className="card" aria-labelledby="overview-usage">
          <h2 id="overview-usage">Usage, last 30 days</h2>
          <UsageTotals usage={usage.data} />
        </section>
      )}
    </Page>
  );
}
