import type { ReactNode } from 'react';

/** Name/value pairs of an API answer (a write's decision, an import's estimate), as a description list. */
export function FieldList({ items }: { items: Array<[string, ReactNode] | false | undefined> }) {
  return (
    <dl className="field-list">
      {items.map(
        (item) =>
          item && (
            <div key={item[0]}>
              <dt>{item[0]}</dt>
              <dd>{item[1]}</dd>
            </div>
          ),
      )}
    </dl>
  );
}
