import type { ImportJob } from '@text-memory/sdk';
import { useState } from 'react';
import { DataKeyPicker } from '../components/data-key-picker.js';
import { NeedsDataKey } from '../components/needs-data-key.js';
import { Page } from '../components/page.js';
import { ImportJobView } from './imports/import-job-view.js';
import { UploadForm } from './imports/upload-form.js';

/** Document import: upload a file, read its estimate, start, follow its progress, see the failed rows. */
export function ImportsPage() {
  const [job, setJob] = useState<ImportJob>();
  return (
    <Page title="Imports" summary="Import a CSV, XLSX or JSON file: each row becomes a memory.">
      <DataKeyPicker />
      <NeedsDataKey>
        <UploadForm onUploaded={setJob} />
        {job && <ImportJobView key={job.id} initial={job} />}
      </NeedsDataKey>
    </Page>
  );
}
