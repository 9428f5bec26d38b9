import { CONTRACT_VERSION, EXPORT_PAGE_SIZE, type MemoryExportPage } from '@tm/contracts';
import type { MemoryClient } from '../../clients/memory-client.js';
import type { TelemetryClient } from '../../clients/telemetry-client.js';
import { namespaceRef } from './namespace-ref.js';

/** Where the export goes: `write` resolves when the chunk may be followed by another (backpressure). */
export interface ExportSink {
  write(chunk: string): Promise<void>;
  /** True once the client has gone: stop fetching pages nobody will read. */
  readonly closed: boolean;
}

export interface ExportSelection {
  tenantId: string;
  requestId: string;
  /** Only these namespaces; null for every namespace of the tenant. */
  namespaces: string[] | null;
}

type Part = 'records' | 'supersession_relations' | 'history';
const PARTS: Part[] = ['records', 'supersession_relations', 'history'];

/**
 * An export, one page at a time: memory's records and supersession relations, then telemetry's
 * redacted history, each a JSON array written as its pages arrive. Nothing holds more than a page.
 * The first page of records is fetched by `prepare`, before anything is written, so an outage at
 * the start is an ordinary 503; a failure later ends the document with `complete: false` and an
 * `error`, and the remaining parts as empty arrays, so it still parses.
 */
export function exportDocument(
  deps: { memory: MemoryClient; telemetry: TelemetryClient },
  sel: ExportSelection,
) {
  const memoryPage = (part: 'records' | 'supersession_relations', after: MemoryExportPage['next']) =>
    deps.memory.exportPage({
      tenant_id: sel.tenantId,
      request_id: sel.requestId,
      namespaces: sel.namespaces,
      part,
      after,
      limit: EXPORT_PAGE_SIZE,
    });
  const refs = sel.namespaces?.map((n) => namespaceRef(sel.tenantId, n)) ?? null;

  /** Each part's rows, page by page, as async batches. */
  async function* pages(part: Part, first?: MemoryExportPage): AsyncGenerator<unknown[]> {
    if (part === 'history') {
      let after = null;
      do {
        const page = await deps.telemetry.historyPage({
          tenant_id: sel.tenantId,
          namespace_refs: refs,
          after,
          limit: EXPORT_PAGE_SIZE,
        });
        yield page.data;
        after = page.next;
      } while (after);
      return;
    }
    let page = first ?? (await memoryPage(part, null));
    for (;;) {
      yield part === 'records' ? page.records : page.supersession_relations;
      if (!page.next) return;
      page = await memoryPage(part, page.next);
    }
  }

  return {
    /** Fetch the first page; throws (before any byte is written) if memory cannot answer. */
    async prepare() {
      const first = await memoryPage('records', null);
      return {
        async writeTo(sink: ExportSink): Promise<void> {
          const counts: Record<Part, number> = { records: 0, supersession_relations: 0, history: 0 };
          await sink.write(
            `{"contract_version":${JSON.stringify(CONTRACT_VERSION)},"request_id":${JSON.stringify(sel.requestId)},` +
              `"exported_at":"${new Date().toISOString()}","selection":${JSON.stringify({ namespaces: sel.namespaces })}`,
          );
          let failure: string | undefined;
          for (const part of PARTS) {
            await sink.write(`,"${part}":[`);
            if (!failure) {
              try {
                for await (const rows of pages(part, part === 'records' ? first : undefined)) {
                  if (sink.closed) return;
                  if (rows.length === 0) continue;
                  await sink.write(
                    (counts[part] > 0 ? ',' : '') + rows.map((r) => JSON.stringify(r)).join(','),
                  );
                  counts[part] += rows.length;
                }
              } catch (err) {
                failure = `The export was cut short while reading ${part.replace('_', ' ')}: ${
                  err instanceof Error ? err.message : 'unknown error'
                }`;
              }
            }
            await sink.write(']');
          }
          await sink.write(
            `,"counts":${JSON.stringify(counts)},"complete":${failure ? 'false' : 'true'}` +
              `${failure ? `,"error":${JSON.stringify(failure)}` : ''}}`,
          );
        },
      };
    },
  };
}
