/**
 * One endpoint's numbers as the NATS micro protocol reports them (`$SRV.STATS`, `nats micro stats`):
 * requests answered, how many with an error and the last one, and the time spent answering them, in
 * nanoseconds. Counted per message from receipt to answer; our own Prometheus metrics
 * (bus-metrics.ts) count per item and by outcome, and stay what dashboards and alerts read.
 *
 * The last error is its status and code only (`400 validation_failed`), never its message: anyone
 * allowed `$SRV.>` reads these numbers, and a message may quote a tenant's input (a dataset's name, a
 * key of template data). The caller that was refused has the message in its answer.
 */
export class EndpointStats {
  num_requests = 0;
  num_errors = 0;
  last_error = '';
  /** Nanoseconds, summed: exact up to 2^53 ns (104 days of handling), then rounded, never wrapped. */
  processing_time = 0;

  constructor(
    readonly name: string,
    readonly subject: string,
    readonly queue_group: string,
  ) {}

  /** One message answered, `startedMs` from `performance.now()` at its receipt. */
  record(startedMs: number, error: { status: number; code: string } | undefined): void {
    this.num_requests++;
    this.processing_time += Math.round((performance.now() - startedMs) * 1e6);
    if (error) {
      this.num_errors++;
      this.last_error = `${error.status} ${error.code}`;
    }
  }

  report() {
    const { name, subject, queue_group, num_requests, num_errors, last_error, processing_time } = this;
    return {
      name,
      subject,
      queue_group,
      num_requests,
      num_errors,
      last_error,
      processing_time,
      average_processing_time: num_requests ? Math.round(processing_time / num_requests) : 0,
    };
  }
}
