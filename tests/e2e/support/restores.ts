import type { ExportRecord, ExportRelation, RestoreJob } from '@tm/contracts';
import { expect } from 'vitest';
import type { Api } from './api.js';
import { eventually } from './eventually.js';

export const RESTORE = '/api/v1/memory/restore';
const EXPORT = '/api/v1/infrastructure/export';

/** An export document as the export route writes it (ExportDocument in libs/contracts/src/telemetry/telemetry.ts). */
export interface ExportFile {
  contract_version: string;
  request_id: string;
  exported_at: string;
  selection: { namespaces: string[] | null };
  records: ExportRecord[];
  supersession_relations: ExportRelation[];
  history: unknown[];
  counts: { records: number; supersession_relations: number; history: number };
  complete: boolean;
}

/** The export of `namespaces` through the API, as a client would save it. */
export async function exportFile(api: Api, key: string, namespaces: string[]): Promise<ExportFile> {
  const res = await api.get(EXPORT, { key, query: { namespace: namespaces } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const doc = JSON.parse(res.text) as ExportFile;
  expect(doc.complete).toBe(true);
  return doc;
}

/** A file of hand-made records in one namespace, shaped as the export route writes one. */
export function handMadeExport(
  namespace: string,
  records: Array<{ event_id: string; text: string; occurred_at?: string }>,
): ExportFile {
  const made = records.map((r, i) => ({
    memory_id: `0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
    event_id: r.event_id,
    namespace,
    occurred_at: r.occurred_at ?? '2026-11-22T09:00:00.000Z',
    retained_at: new Date(Date.UTC(2026, 10, 22, 10, 0, i)).toISOString(),
    text: r.text,
    source: null,
    status: 'current' as const,
    superseded_at: null,
  }));
  return {
    contract_version: 'v1',
    request_id: 'hand-made',
    exported_at: '2026-11-23T00:00:00.000Z',
    selection: { namespaces: [namespace] },
    records: made,
    supersession_relations: [],
    history: [],
    counts: { records: made.length, supersession_relations: 0, history: 0 },
    complete: true,
  };
}

/** POST the file to the restore route; `query` names the target and source namespaces. */
export const restore = (api: Api, key: string, file: unknown, query: Record<string, string> = {}) =>
  api.post(RESTORE, { key, body: file, query });

/** Poll a restore's status route, as a client would after the 202, until it has completed. */
export async function followRestore(api: Api, key: string, id: string): Promise<RestoreJob> {
  // A read that is not a 200 is no state to wait out: returned, and asserted after the wait.
  const last = await eventually(
    async () => {
      const res = await api.get(`${RESTORE}/${id}`, { key });
      if (res.status === 200) expect(res.body.state).toBe('completed');
      return res;
    },
    { timeout: 60_000 },
  );
  expect(last.status, JSON.stringify(last.body)).toBe(200);
  return last.body as RestoreJob;
}
