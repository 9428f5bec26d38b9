import { useState } from 'react';
import { Link } from 'react-router';
import { CopyButton } from '../components/copy-button.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { useDataKey } from '../session/data-key-context.js';
import { useSession } from '../session/session-context.js';
import { connectSnippets } from './connect/connect-snippets.js';
import { SnippetCard } from './connect/snippet-card.js';

/** The console's own key for this tab, in one click: the data pages use it, the snippets show it. */
function CreateOwnKey() {
  const { takeOwnKey } = useDataKey();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const create = async () => {
    setError(undefined);
    setBusy(true);
    try {
      await takeOwnKey();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" disabled={busy} onClick={() => void create()}>
        Create a key for the console
      </button>
      <ErrorNotice error={error} />
    </>
  );
}

/**
 * First steps for a new user: the base URL of this deployment (the console's own origin, as the SDK
 * inside the console uses) and ready-to-copy snippets for the TypeScript and Python SDKs, the CLI and an MCP client.
 * No secret is shown unless this tab just created the console's own key: then the snippets hold it.
 */
export function ConnectPage() {
  const { can } = useSession();
  const { ownKey } = useDataKey();
  const baseUrl = window.location.origin;
  const snippets = connectSnippets(baseUrl, ownKey?.key);

  return (
    <Page
      title="Connect an app"
      summary="Where your code reaches this deployment, and how to call it from the TypeScript or Python SDK, the CLI or an agent (MCP, local or by URL)."
    >
      <section className="card" aria-labelledby="connect-base-url">
        <h2 id="connect-base-url">Base URL</h2>
        <div className="row">
          <code>{baseUrl}</code>
          <CopyButton value={baseUrl} label="Copy the base URL" />
        </div>
        <p className="hint">
          Every client adds <code>/api/v1/…</code> itself. Calls carry an API key (<code>tmk_…</code>), sent
          as <code>Authorization: Bearer</code>; the snippets read it from <code>TM_API_KEY</code>.
        </p>
      </section>
      <section className="card" aria-labelledby="connect-key">
        <h2 id="connect-key">API key</h2>
        {ownKey ? (
          <p>
            The snippets hold this tab's key, <strong>{ownKey.name}</strong>, created just now: it can write,
            recall and delete. It is revoked when you log out or leave the page; until then it is listed on
            the <Link to="/api-keys">API keys</Link> page.
          </p>
        ) : (
          <p>
            The snippets show <code>tmk_…</code> where your key goes: the console never shows a key it did not
            just create.{' '}
            {can('keys:manage') ? (
              <>
                Create one on the <Link to="/api-keys">API keys</Link> page (choose its permissions; the
                secret is shown once), or the console's own key for this tab here, and the snippets will hold
                it.
              </>
            ) : (
              'Ask an owner or admin of your tenant for one.'
            )}
          </p>
        )}
        {can('keys:manage') && !ownKey && <CreateOwnKey />}
      </section>
      {snippets.map((snippet) => (
        <SnippetCard key={snippet.id} snippet={snippet} />
      ))}
    </Page>
  );
}
