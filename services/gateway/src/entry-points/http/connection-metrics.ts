import client from 'prom-client';

/** Connections closed as they were accepted because the gateway held its cap (GATEWAY_MAX_CONNECTIONS). */
export const connectionsDropped = new client.Counter({
  name: 'tm_http_connections_dropped_total',
  help: 'Connections the gateway closed on accept because it already held GATEWAY_MAX_CONNECTIONS',
});

/** Connections closed as they were accepted because their address held GATEWAY_MAX_CONNECTIONS_PER_ADDRESS. */
export const connectionsRefusedPerAddress = new client.Counter({
  name: 'tm_http_connections_refused_per_address_total',
  help: 'Connections the gateway closed on accept because their peer address already held GATEWAY_MAX_CONNECTIONS_PER_ADDRESS',
});
