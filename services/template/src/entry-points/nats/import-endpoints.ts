import type { Service } from '@tm/bus';
import {
  CreateDatasetImportMessage,
  CreateImportMessage,
  ImportChunkMessage,
  ImportRefMessage,
  ListImportFailuresMessage,
  StartImportMessage,
  Subjects,
} from '@tm/contracts';
import type { ReadWritePrice } from '../../clients/billing-prices.js';
import { appendImportChunk } from '../../domain/imports/append-import-chunk.js';
import { createImport } from '../../domain/imports/create-import.js';
import { discardImport } from '../../domain/imports/discard-import.js';
import { getImport } from '../../domain/imports/get-import.js';
import {
  createDatasetImport,
  type DatasetImportDeps,
} from '../../domain/imports/hub/create-dataset-import.js';
import { listImportFailures } from '../../domain/imports/list-import-failures.js';
import type { ImportLimits } from '../../domain/imports/parsing/import-limits.js';
import type { ReadSlots } from '../../domain/imports/parsing/read-slots.js';
import { sealImport } from '../../domain/imports/seal-import.js';
import { startImport } from '../../domain/imports/start-import.js';

/** Document import's request/reply endpoints, served by the template service. */
export function serveImportEndpoints(
  service: Service,
  options: {
    /** memory.write's price, asked of billing for each estimate. */
    price: ReadWritePrice;
    nudge: () => void;
    limits: ImportLimits;
    readSlots: ReadSlots;
    maxInFlightPerTenant: number;
    /** Model-hub dataset imports; the price is the one above. */
    datasets: Omit<DatasetImportDeps, 'price' | 'maxRows'>;
  },
): void {
  const s = Subjects.template;
  service.endpoint({
    subject: s.createImport,
    input: CreateImportMessage,
    handler: (m) => createImport(m, { maxInFlightPerTenant: options.maxInFlightPerTenant }),
  });
  service.endpoint({
    subject: s.createDatasetImport,
    input: CreateDatasetImportMessage,
    handler: (m) =>
      createDatasetImport(m, {
        ...options.datasets,
        price: options.price,
        maxRows: options.limits.maxRows,
      }),
  });
  service.endpoint({
    subject: s.appendImportChunk,
    input: ImportChunkMessage,
    handler: appendImportChunk,
  });
  service.endpoint({
    subject: s.sealImport,
    input: ImportRefMessage,
    handler: (m) =>
      sealImport(m, { price: options.price, limits: options.limits, readSlots: options.readSlots }),
  });
  service.endpoint({ subject: s.discardImport, input: ImportRefMessage, handler: discardImport });
  service.endpoint({
    subject: s.startImport,
    input: StartImportMessage,
    handler: (m) =>
      startImport(m, { nudge: options.nudge, maxInFlightPerTenant: options.maxInFlightPerTenant }),
  });
  service.endpoint({ subject: s.getImport, input: ImportRefMessage, handler: getImport });
  service.endpoint({
    subject: s.listImportFailures,
    input: ListImportFailuresMessage,
    handler: listImportFailures,
  });
}
