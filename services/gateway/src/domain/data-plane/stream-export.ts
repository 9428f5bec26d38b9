import { AppError, CONTRACT_VERSION, EXPORT_PAGE_SIZE, type MemoryExportPage } from '@tm/contracts';
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

/** One page of a part, and how to fetch the page after it (null on the last). */
interface Page {
  rows: unknown[];
  more: (() => Promise<Page>) | null;
}

/** Tries at a later page (the first, the retries) before the export is abandoned. */
const PAGE_ATTEMPTS = 3;

/**
 * A later page's outage, ridden out: by then the 200 is sent, and the only failure left to show is a
 * broken transfer. A retryable error (service down or slow, breaker open) is tried again after its
 * Retry-After; anything else, or the last try's error, is thrown.
 */
async function retrying(fetch: () => Promise<Page>, sink: ExportSink): Promise<Page> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch();
    } catch (err) {
      if (!(err instanceof AppError) || !err.retryable || attempt >= PAGE_ATTEMPTS || sink.closed) throw err;
      await new Promise((resolve) => setTimeout(resolve, (err.retryAfter ?? 1) * 1_000));
    }
  }
}

/**
 * An export, one page at a time: memory's records and supersession relations, then telemetry's
 * redacted history, each a JSON array written as its pages arrive. Nothing holds more than a page
 * per part. The first page of every part is fetched by `prepare`, before anything is written, so an
 * outage of memory or telemetry at the start is the route's 503/504 (retryable, Retry-After), and an
 * export of at most a page per part (1,000 rows) is read whole before its 200. A later page that
 * still fails after PAGE_ATTEMPTS throws from `writeTo`: the gateway then breaks the transfer off
 * (error-handler.ts), so a client never takes a cut export for a whole one.
 */
export function exportDocument(
  deps: { memory: MemoryClient; telemetry: TelemetryClient },
  sel: ExportSelection,
) {
  const refs = sel.namespaces?.map((n) => namespaceRef(sel.tenantId, n)) ?? null;

  async function memoryPage(
    part: 'records' | 'supersession_relations',
    after: MemoryExportPage['next'],
  ): Promise<Page> {
    const page = await deps.memory.exportPage({
      tenant_id: sel.tenantId,
      request_id: sel.requestId,
      namespaces: sel.namespaces,
      part,
      after,
      limit: EXPORT_PAGE_SIZE,
    });
    const { next } = page;
    return {
      rows: part === 'records' ? page.records : page.supersession_relations,
      more: next ? () => memoryPage(part, next) : null,
    };
  }

  async function historyPage(after: { occurred_at: string; record_id: string } | null): Promise<Page> {
    const page = await deps.telemetry.historyPage({
      tenant_id: sel.tenantId,
      namespace_refs: refs,
      after,
      limit: EXPORT_PAGE_SIZE,
    });
    const { next } = page;
    return { rows: page.data, more: next ? () => historyPage(next) : null };
  }

  const firstPage = (part: Part) => (part === 'history' ? historyPage(null) : memoryPage(part, null));

  return {
    /** Fetch every part's first page; throws (before any byte is written) if a service cannot answer. */
    async prepare() {
      const firsts = await Promise.all(PARTS.map(firstPage));
      return {
        /** Write the document; throws if a later page could not be read (the document is then unfinished). */
        async writeTo(sink: ExportSink): Promise<void> {
          const counts: Record<Part, number> = { records: 0, supersession_relations: 0, history: 0 };
          await sink.write(
            `{"contract_version":${JSON.stringify(CONTRACT_VERSION)},"request_id":${JSON.stringify(sel.requestId)},` +
              `"exported_at":"${new Date().toISOString()}","selection":${JSON.stringify({ namespaces: sel.namespaces })}`,
          );
          for (const [index, part] of PARTS.entries()) {
            await sink.write(`,"${part}":[`);
            let page = firsts[index] as Page;
            for (;;) {
              if (sink.closed) return;
              if (page.rows.length > 0) {
                await sink.write(
                  (counts[part] > 0 ? ',' : '') + page.rows.map((r) => JSON.stringify(r)).join(','),
                );
                counts[part] += page.rows.length;
              }
              if (!page.more) break;
              page = await retrying(page.more, sink);
            }
            await sink.write(']');
          }
          await sink.write(`,"counts":${JSON.stringify(counts)},"complete":true}`);
        },
      };
    },
  };
}
