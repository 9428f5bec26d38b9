import { randomUUID } from 'node:crypto';
import { AppError, type CreateImportMessage, ErrorCode } from '@tm/contracts';
import { insertImportJobWithinLimit } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { withImportErrors } from './import-error-to-app-error.js';
import { uploadsInFlight } from './in-flight-imports.js';
import { fileKindOfName } from './parsing/detect-format.js';
import { resolveImportFormat } from './resolve-import-format.js';

/**
 * Opens an import before any byte of the file arrives: the file name's type, the format and the
 * template are checked first, so a .txt upload or a bad format is refused without reading the file.
 * A template gives its format (its fields as `name: {name}` lines when it has none); a `format` sent
 * with the template overrides it. A tenant may have `maxInFlightPerTenant` uploads in flight at once
 * (received or being read, the phases that cost memory; in-flight-imports.ts), checked before any
 * byte is sent.
 */
export async function createImport(
  msg: CreateImportMessage,
  deps: { maxInFlightPerTenant: number },
  db = getPrisma(),
): Promise<{ import_id: string }> {
  const { fields, scope } = msg;
  return withImportErrors(async () => {
    const fileKind = fileKindOfName(msg.file_name);
    const mapping = await resolveImportFormat(scope.tenant_id, fields, db);
    const id = randomUUID();
    const opened = await insertImportJobWithinLimit(
      db,
      {
        id,
        tenantId: scope.tenant_id,
        state: 'uploading',
        fileName: msg.file_name,
        fileKind,
        namespace: fields.namespace,
        ...mapping,
        requestId: msg.request_id,
      },
      { maxInFlight: deps.maxInFlightPerTenant, inFlight: uploadsInFlight() },
    );
    if (!opened) {
      throw new AppError(
        ErrorCode.TooManyImports,
        `This tenant already has ${deps.maxInFlightPerTenant} uploads being received or read; retry when one has finished`,
        { retryAfter: 5 },
      );
    }
    return { import_id: id };
  });
}
