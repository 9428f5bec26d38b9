// HEALTHCHECK of the one Dockerfile, run with plain node inside the container (no curl or wget in the
// image). The gateway: the readiness route docker-compose.yml's healthcheck asks too. A bus service has
// no HTTP API; its metrics listener answering means the process is up and its event loop turns.
const service = process.env.SERVICE ?? '';
// The migrate job is not a server: it runs and exits.
if (service === 'migrate') process.exit(0);
const metricsPorts = {
  gateway: 9464,
  memory: 9465,
  billing: 9466,
  telemetry: 9467,
  template: 9468,
  webhooks: 9469,
};
const url =
  service === 'gateway'
    ? `http://127.0.0.1:${process.env.GATEWAY_PORT ?? 8080}/api/v1/infrastructure/health`
    : `http://127.0.0.1:${process.env[`${service.toUpperCase()}_METRICS_PORT`] ?? metricsPorts[service]}/metrics`;
fetch(url, { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
