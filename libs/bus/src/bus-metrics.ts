import { LATENCY_BUCKETS } from '@tm/kit';
import client from 'prom-client';

/** Messages a service handled, by subject and outcome (ok, client_error: a 4xx answer, server_error). */
export const handledMessages = new client.Counter({
  name: 'tm_bus_handled_total',
  help: 'Request messages a service answered, by subject and outcome (ok, client_error, server_error)',
  labelNames: ['subject', 'outcome'],
});

export const handlingSeconds = new client.Histogram({
  name: 'tm_bus_handle_duration_seconds',
  help: 'Time a service took to answer a request message (a coalesced message counts each item), by subject',
  labelNames: ['subject'],
  buckets: LATENCY_BUCKETS,
});

/** The caller's side: requests to a service that got no answer, by kind (no_responders, timeout, bus_down). */
export const requestErrors = new client.Counter({
  name: 'tm_bus_request_errors_total',
  help: 'Requests to a service that failed on the bus, by target service and kind (no_responders, timeout, bus_down)',
  labelNames: ['service', 'kind'],
});

export const requestSeconds = new client.Histogram({
  name: 'tm_bus_request_duration_seconds',
  help: 'Round trip of a request to a service as its caller saw it, by target service',
  labelNames: ['service'],
  buckets: LATENCY_BUCKETS,
});

/** An answer's outcome label from its HTTP-like status. */
export const outcomeOf = (status: number | undefined) =>
  status === undefined || status < 400 ? 'ok' : status < 500 ? 'client_error' : 'server_error';
