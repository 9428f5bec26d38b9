import type { ReactNode } from 'react';

/** A page's frame: its heading (the one h1, named for screen readers), an optional summary and actions. */
export function Page({
  title,
  summary,
  actions,
  children,
}: {
  title: string;
  summary?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <div>
          <h1 id="page-title">{title}</h1>
          {summary && <p className="page-summary">{summary}</p>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
