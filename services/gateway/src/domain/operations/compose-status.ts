import { RUNTIME, type StatusResponse } from '@tm/contracts';
import type { RequestRecorder } from '../../clients/request-recorder.js';
import type { TelemetryClient } from '../../clients/telemetry-client.js';
import { findConsent } from '../../data-access/consent-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { checkHealth, type HealthProbes } from './check-health.js';

/** The window monitoring looks back over on the status route. */
export const STATUS_WINDOW_MINUTES = 15;

/**
 * One answer to "is it healthy, and is anything wrong for me": every service's ping, the tenant's
 * anomalies over the last minutes, this instance's telemetry buffer, and the caller's consent.
 * Monitoring being unreachable is reported as such, not as an error of the whole route.
 */
export async function composeStatus(
  deps: {
    probes: HealthProbes;
    deployment: { version: string; environment: string };
    telemetry: TelemetryClient;
    recorder: RequestRecorder;
  },
  reader: { tenantId: string; userId: string },
  requestId: string,
): Promise<StatusResponse> {
  const [health, anomalies, consent] = await Promise.all([
    checkHealth(deps.probes, deps.deployment),
    deps.telemetry
      .anomalies({ tenant_id: reader.tenantId, window_minutes: STATUS_WINDOW_MINUTES })
      .catch(() => undefined),
    findConsent(getPrisma(), reader.tenantId, reader.userId),
  ]);
  let state: StatusResponse['monitoring']['state'] = 'unavailable';
  if (anomalies) {
    if (anomalies.anomaly_count > 0) state = 'anomalous';
    else state = anomalies.state === 'no_data' ? 'no_data' : 'ok';
  }
  return {
    ...health,
    provider: RUNTIME.provider,
    model_version: RUNTIME.model_version,
    monitoring: {
      state,
      anomalies: anomalies?.anomalies ?? [],
      anomaly_count: anomalies?.anomaly_count ?? null,
      window_minutes: STATUS_WINDOW_MINUTES,
      request_records: { queued: deps.recorder.queued, dropped: deps.recorder.dropped },
    },
    consent: { state: consent?.state === 'granted' ? 'granted' : 'missing', scope: 'private_memory' },
    request_id: requestId,
  };
}
