import { type ReactNode, useId } from 'react';
import { CopyButton } from '../../components/copy-button.js';
import type { Snippet } from './connect-snippets.js';

/**
 * One snippet: what it is, the text to copy, and its Copy button. `children` go between the heading
 * and the note (the MCP card's endpoint row); `title` and `copyLabel` override the snippet's own.
 */
export function SnippetCard({
  snippet,
  title = snippet.title,
  copyLabel = `Copy the ${snippet.title} snippet`,
  children,
}: {
  snippet: Snippet;
  title?: string;
  copyLabel?: string;
  children?: ReactNode;
}) {
  const id = useId();
  return (
    <section className="card snippet" aria-labelledby={id}>
      <div className="row snippet-head">
        <h2 id={id}>{title}</h2>
        <CopyButton value={snippet.text} label={copyLabel} />
      </div>
      {children}
      <p className="hint">{snippet.note}</p>
      {/* Focusable: a line longer than a phone is wide scrolls inside, by the arrow keys too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls must be reachable by keyboard to scroll */}
      <pre className="snippet-text" tabIndex={0}>
        <code>{snippet.text}</code>
      </pre>
    </section>
  );
}
