import { prom } from '@tm/kit';

/** Request records (or whole messages) dead-lettered, by why: not_a_batch, invalid_record, refused_by_database. */
export const recordsDeadLettered = new prom.Counter({
  name: 'tm_request_records_dead_lettered_total',
  help: 'Request records telemetry could not store and dead-lettered (the rest of their batch stored), by kind',
  labelNames: ['kind'],
});
