import type { ReactNode } from 'react';

/**
 * "Previous / next" buttons under a paged list. A handler left undefined means there is no such page.
 * Named pagers (a <nav>) keep both buttons in place and disable the one that leads nowhere, or both
 * while a page loads; unnamed ones are a plain row showing only the buttons that lead somewhere.
 */
export function Pager({
  label,
  onPrevious,
  onNext,
  previousText = 'Previous page',
  nextText = 'Next page',
  busy = false,
  children,
}: {
  /** The <nav>'s accessible name (`Pages of charges`); without it, a plain row. */
  label?: string;
  onPrevious?: () => void;
  onNext?: () => void;
  previousText?: string;
  nextText?: string;
  /** A page is loading: a named pager's buttons wait for it. */
  busy?: boolean;
  /** More controls after the buttons (rows per page). */
  children?: ReactNode;
}) {
  const button = (text: string, go: (() => void) | undefined) =>
    label ? (
      <button type="button" className="button-secondary" disabled={!go || busy} onClick={go}>
        {text}
      </button>
    ) : (
      go && (
        <button type="button" className="button-secondary" onClick={go}>
          {text}
        </button>
      )
    );
  const buttons = (
    <>
      {button(previousText, onPrevious)}
      {button(nextText, onNext)}
      {children}
    </>
  );
  return label ? (
    <nav className="row" aria-label={label}>
      {buttons}
    </nav>
  ) : (
    <div className="row">{buttons}</div>
  );
}
