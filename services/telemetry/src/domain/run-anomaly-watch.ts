import { getPool } from '../data-access/prisma-client.js';
import { withWatchLock } from '../data-access/raised-anomaly-repository.js';
import { type AnomalyWatchOptions, watchAnomalies } from './watch-anomalies.js';

/**
 * One pass of the anomaly watch, run by whichever instance takes the watch's lock; undefined when
 * another instance holds it (that one is judging the same window).
 */
export function runAnomalyWatch(options: AnomalyWatchOptions) {
  return withWatchLock(getPool(), (run) => watchAnomalies(run, options));
}
