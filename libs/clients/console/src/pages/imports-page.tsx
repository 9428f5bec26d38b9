import type { ImportJob } from '@text-memory/sdk';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { DataKeyPicker } from '../components/data-key-picker.js';
import { NeedsDataKey } from '../components/needs-data-key.js';
import { Page } from '../components/page.js';
import { useDataKey } from '../session/data-key-context.js';
import { ImportJobView } from './imports/import-job-view.js';
import { rememberedImport, rememberImport } from './imports/last-import.js';
import { OpenImportForm } from './imports/open-import-form.js';
import { UploadForm } from './imports/upload-form.js';

/**
 * Document import: upload a file or name a hub dataset, read its estimate, start, follow its progress,
 * see the failed rows. The open job's id is in the address (`?import=<id>`), so a reload, a link or the
 * way back finds it again.
 */
export function ImportsPage() {
  return (
    <Page
      title="Imports"
      summary="Import a CSV, XLSX or JSON file, or a hub dataset: each row becomes a memory."
    >
      <DataKeyPicker />
      <NeedsDataKey>
        <Imports />
      </NeedsDataKey>
    </Page>
  );
}

function Imports() {
  const { client } = useDataKey();
  const [params, setParams] = useSearchParams();
  const importId = params.get('import') || undefined;
  // The job an upload answered, shown without reading it again.
  const [created, setCreated] = useState<ImportJob>();

  useEffect(() => {
    if (!client) return;
    if (importId) rememberImport(client, importId);
    else {
      const last = rememberedImport(client);
      if (last) setParams({ import: last }, { replace: true });
    }
  }, [client, importId, setParams]);

  const open = (next: string | undefined) => setParams(next ? { import: next } : {});
  const close = () => {
    if (client) rememberImport(client, undefined);
    open(undefined);
  };

  return (
    <>
      <UploadForm
        onUploaded={(job) => {
          setCreated(job);
          open(job.id);
        }}
      />
      {importId && <ImportJobView key={importId} importId={importId} initial={created} onClose={close} />}
      <OpenImportForm onOpen={open} />
    </>
  );
}
