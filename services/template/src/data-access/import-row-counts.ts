import type { Db } from './prisma-client.js';

export interface RowCounts {
  pending: number;
  retained: number;
  present: number;
  failed: number;
}

/** Rows per state: the job's progress, always what the rows say. */
export async function countImportRows(db: Db, importId: string): Promise<RowCounts> {
  const groups = await db.importRow.groupBy({ by: ['state'], where: { importId }, _count: { _all: true } });
  const count = (state: string) => groups.find((g) => g.state === state)?._count._all ?? 0;
  return {
    pending: count('pending'),
    retained: count('retained'),
    present: count('present'),
    failed: count('failed'),
  };
}
