import type { Service } from '@tm/bus';
import {
  CreateRestoreMessage,
  ListRestoreFailuresMessage,
  RestoreRefMessage,
  RestoreRowsMessage,
  StartRestoreMessage,
  Subjects,
} from '@tm/contracts';
import { appendRestoreRows } from '../../domain/restores/append-restore-rows.js';
import { createRestore } from '../../domain/restores/create-restore.js';
import { getRestore } from '../../domain/restores/get-restore.js';
import { listRestoreFailures } from '../../domain/restores/list-restore-failures.js';
import { startRestore } from '../../domain/restores/start-restore.js';

/** Restoring an export's records: jobs of the import worker, of kind `restore`. */
export function serveRestoreEndpoints(
  service: Service,
  options: { nudge: () => void; maxInFlightPerTenant: number },
): void {
  const s = Subjects.template;
  service.endpoint({
    subject: s.createRestore,
    input: CreateRestoreMessage,
    handler: (m) => createRestore(m, { maxInFlightPerTenant: options.maxInFlightPerTenant }),
  });
  service.endpoint({ subject: s.appendRestoreRows, input: RestoreRowsMessage, handler: appendRestoreRows });
  service.endpoint({
    subject: s.startRestore,
    input: StartRestoreMessage,
    handler: (m) => startRestore(m, { nudge: options.nudge }),
  });
  service.endpoint({ subject: s.getRestore, input: RestoreRefMessage, handler: getRestore });
  service.endpoint({
    subject: s.listRestoreFailures,
    input: ListRestoreFailuresMessage,
    handler: listRestoreFailures,
  });
}
