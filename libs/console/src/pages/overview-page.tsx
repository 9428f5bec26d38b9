import { ErrorNotice } from '../components/error-notice.js';
import { HealthSummary } from '../components/health-summary.js';
import { Page } from '../components/page.js';
import { useLoad } from '../hooks/use-load.js';
import { useSession } from '../session/session-context.js';

/** Health and what needs attention first. */
export function OverviewPage() {
  const { client } = useSession();
  const health = useLoad((signal) => client.infrastructure.health({ signal }), [client]);
  const status = useLoad((signal) => client.infrastructure.status({ signal }), [client]);
  return (
    <Page title="Overview" summary="The deployment's health and what needs attention.">
      <ErrorNotice error={health.error ?? status.error} />
      {health.data && <HealthSummary health={health.data} />}
      {status.data && (
        <div className="card">
          <h2>Anomalies</h2>
          <p>
            Monitoring: <span className="badge">{status.data.monitoring.state}</span>
          </p>
        </div>
      )}
    </Page>
  );
}
