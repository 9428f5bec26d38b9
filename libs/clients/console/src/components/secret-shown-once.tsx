import { useEffect, useRef } from 'react';
import { CopyButton } from './copy-button.js';

/**
 * A secret the API returns once (a new or rotated API key, an operator token, a webhook signing
 * secret). It lives in the page's state only, never in Web Storage, and is gone when dismissed, on
 * reload or on leaving the page.
 *
 * Not to be put in a live region, which would read the secret aloud: the page announces a short
 * "Key created" there, and focus moves to this panel's heading, from where the secret is read on demand.
 */
export function SecretShownOnce({
  title,
  secret,
  usage,
  kept = 'Only a hash is kept, so nobody can show it to you later.',
  onDismiss,
}: {
  title: string;
  secret: string;
  /** How the secret is sent (`Authorization: Bearer …`), said beside it. */
  usage?: string;
  /** How the server keeps it, and so why it cannot be shown again. */
  kept?: string;
  onDismiss: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Again for each new secret (a rotation right after a creation keeps the panel mounted).
  useEffect(() => {
    if (secret) heading.current?.focus();
  }, [secret]);
  return (
    <section className="notice secret-once" aria-label={title}>
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> {kept}
        {usage ? ` ${usage}` : ''}
      </p>
      <p className="row">
        <code className="secret">{secret}</code>
        <CopyButton value={secret} label="Copy secret" />
      </p>
      <button type="button" className="button-secondary" onClick={onDismiss}>
        I have stored it
      </button>
    </section>
  );
}
