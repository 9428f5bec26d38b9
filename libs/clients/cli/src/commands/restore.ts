import { readFileSync, statSync } from 'node:fs';
import type { ExportFile, RestoreJob } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { EXIT, ExitWith, UsageError } from '../exit-codes.js';
import { startProgress } from '../progress.js';

/** The server's bound on a restore's body (capabilities' `restore_body_max_bytes`); checked before reading. */
export const RESTORE_FILE_MAX_BYTES = 16 * 1024 * 1024;

interface RestoreOptions {
  file: string;
  namespace?: string;
  fromNamespace?: string;
}

/** The export file, read and parsed here: a file that is not JSON is a usage error, never sent. */
function readExportFile(path: string): ExportFile {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  if (size > RESTORE_FILE_MAX_BYTES) {
    throw new UsageError(
      `${path} is ${size} bytes; a restore takes at most ${RESTORE_FILE_MAX_BYTES} (export fewer namespaces: tm export -n …)`,
    );
  }
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ExportFile;
  } catch (error) {
    throw new UsageError(`${path} is not an export file (not JSON: ${(error as Error).message})`);
  }
}

/**
 * `tm restore --file export.json`: the file as `tm export` wrote it, restored into a namespace of the
 * key's tenant as a job, waited for with progress. Exit 0 when every record was written or already
 * there; 3 when some failed (listed after the summary), or when the restore was cancelled (its
 * namespace deleted while it ran).
 */
async function restore(ctx: Context, options: RestoreOptions): Promise<void> {
  const file = readExportFile(options.file);
  const tm = ctx.client('apiKey');
  const progress = startProgress('restore', { unit: 'records', json: ctx.out.json });
  let job: RestoreJob;
  try {
    job = await tm.memory.restore(
      {
        file,
        ...(options.namespace ? { namespace: options.namespace } : {}),
        ...(options.fromNamespace ? { from_namespace: options.fromNamespace } : {}),
      },
      { maxWaitMs: Number.POSITIVE_INFINITY, onProgress: (j) => progress.update(j.processed, j.total) },
    );
  } finally {
    progress.stop();
  }
  const failures = job.failed > 0 ? (await tm.memory.restoreFailures(job.id, { limit: 500 })).failures : [];
  ctx.out.result({ ...job, failures }, () => {
    ctx.out.record([
      ['restore', job.id],
      ['state', job.state],
      ['namespace', `${job.namespace} (from ${job.from_namespace})`],
      ['records', job.total],
      ['written', job.written],
      ['already present', job.already_present],
      ['failed', job.failed],
    ]);
    if (failures.length > 0) {
      ctx.out.line();
      ctx.out.table(failures, [
        { header: 'event id', value: (f) => f.event_id },
        { header: 'reason', value: (f) => f.reason },
        { header: 'message', value: (f) => f.message, max: 80 },
      ]);
    }
  });
  if (job.failed > 0 || job.state === 'cancelled') throw new ExitWith(EXIT.refused);
}

export function registerRestore(program: Command): void {
  program
    .command('restore')
    .description(
      'Restore an export file (as tm export wrote it) into a namespace, and wait for it with progress; a second restore of the same file stores nothing',
    )
    .requiredOption('-f, --file <export.json>', `the export file (at most ${RESTORE_FILE_MAX_BYTES} bytes)`)
    .option('-n, --namespace <namespace>', 'where the records go (default: the namespace they came from)')
    .option('--from-namespace <namespace>', 'which of the file’s namespaces (needed when it holds several)')
    .addHelpText(
      'after',
      '\nExamples:\n  tm export -n support-bot -o export.json && tm restore --file export.json -n support-bot-copy\n  tm restore --file export.json --json',
    )
    .action(withContext(restore));
}
