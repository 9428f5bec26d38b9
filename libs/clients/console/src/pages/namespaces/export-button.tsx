import { ErrorNotice } from '../../components/error-notice.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';

/**
 * Downloads one namespace's export (GET /api/v1/infrastructure/export, with the session) as a JSON
 * file. The document is handed to the browser as a Blob URL, revoked once the download has started:
 * nothing is kept in the page or in storage.
 */
export function ExportButton({ namespace }: { namespace: string }) {
  const { client } = useSession();
  const { busy, error, run } = useAction();

  const download = () =>
    run(async () => {
      const document_ = await client.infrastructure.export({ namespace });
      const url = URL.createObjectURL(
        new Blob([JSON.stringify(document_, null, 2)], { type: 'application/json' }),
      );
      const link = document.createElement('a');
      link.href = url;
      link.download = `export-${namespace.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1_000);
    });

  return (
    <>
      <button
        type="button"
        className="button-secondary"
        aria-label={`Export ${namespace}`}
        disabled={busy}
        onClick={download}
      >
        {busy ? 'Exporting…' : 'Export'}
      </button>
      <ErrorNotice error={error} />
    </>
  );
}
