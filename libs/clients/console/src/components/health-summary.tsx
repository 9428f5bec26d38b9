import type { HealthReport } from '@text-memory/sdk';

/** The deployment's readiness and each service's own report, as GET /api/v1/infrastructure/health gives. */
export function HealthSummary({ health }: { health: HealthReport }) {
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
    </div>
  );
}
