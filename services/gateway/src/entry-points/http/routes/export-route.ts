import { once } from 'node:events';
import { AppError, ErrorCode, EXPORT_NAMESPACES_MAX, Namespace, parseOrThrow } from '@tm/contracts';
import { type Response, Router } from 'express';
import { z } from 'zod';
import type { MemoryClient } from '../../../clients/memory-client.js';
import type { TelemetryClient } from '../../../clients/telemetry-client.js';
import { type ExportSink, exportDocument } from '../../../domain/data-plane/stream-export.js';
import { type AuthDeps, readerOf, requireReader } from '../middleware/authenticate.js';

const ExportQuery = z.strictObject({
  namespace: z
    .union([Namespace, z.array(Namespace)])
    .optional()
    .transform((v) => (v === undefined ? null : [...new Set([v].flat())])),
});

function parseExportQuery(query: unknown): string[] | null {
  const namespaces = parseOrThrow(ExportQuery, query, 'export query').namespace;
  if (namespaces && namespaces.length > EXPORT_NAMESPACES_MAX) {
    throw new AppError(ErrorCode.ValidationFailed, 'Too many namespaces', {
      fields: [{ path: 'namespace', message: `at most ${EXPORT_NAMESPACES_MAX} per export` }],
    });
  }
  return namespaces;
}

/** Writes to the response, waiting for 'drain' when the socket's buffer is full. */
function responseSink(res: Response): ExportSink {
  return {
    async write(chunk: string) {
      if (res.write(chunk)) return;
      // Whichever comes first; the other listener is removed, so long exports do not pile them up.
      const done = new AbortController();
      await Promise.race([
        once(res, 'drain', { signal: done.signal }),
        once(res, 'close', { signal: done.signal }),
      ]).finally(() => done.abort());
    },
    get closed() {
      return res.destroyed || res.writableEnded;
    },
  };
}

/**
 * GET /export?namespace=a&namespace=b: the tenant's retained records, supersession relations and
 * redacted history (all namespaces when none is named), streamed. Retained text is in it in bulk, so it
 * takes `export:read`: an API key holding it, or a session whose role has it.
 */
export function exportRoute(deps: {
  auth: AuthDeps;
  memory: MemoryClient;
  telemetry: TelemetryClient;
}): Router {
  const router = Router();
  router.get('/export', requireReader(deps.auth, 'export:read', 'export:read'), async (req, res) => {
    const namespaces = parseExportQuery(req.query);
    const document = exportDocument(deps, {
      tenantId: readerOf(req).tenantId,
      requestId: req.requestId,
      namespaces,
    });
    const ready = await document.prepare();
    res.status(200).type('application/json');
    // The request id is the client's and may hold `"` or `\`: Express's `attachment` (the
    // `content-disposition` package) quotes and escapes it, so the filename never breaks the header.
    res.attachment(`export-${req.requestId}.json`);
    await ready.writeTo(responseSink(res));
    res.end();
  });
  return router;
}
