import { type ReactNode, useId } from 'react';

/** A column head: its text, and whether the column holds numbers (right-aligned). */
export interface Column {
  label: ReactNode;
  number?: boolean;
}

/** A column of numbers, aligned on the right like its cells. */
export const numberColumn = (label: string): Column => ({ label, number: true });

/**
 * The console's tables: a scrolling box, a caption (the name a screen reader lists the table by,
 * hidden unless `showCaption`), one head row of column headers and the caller's rows. A `false`
 * column is one the user may not see (no Actions without the right), yet the empty row spans it.
 * The box takes keyboard focus, named by the caption, so a table wider than a phone's 390 px can be
 * scrolled sideways with the arrow keys (axe's scrollable-region-focusable); a group, not a region,
 * so the console's two dozen tables do not each become a landmark.
 */
export function DataTable({
  caption,
  columns,
  card = false,
  showCaption = false,
  empty,
  after,
  children,
}: {
  caption: ReactNode;
  columns: Array<string | Column | false>;
  /** The table is the page's card itself. */
  card?: boolean;
  showCaption?: boolean;
  /** A row saying the list is empty, shown when given. */
  empty?: ReactNode;
  /** Shown under the table, inside its box (a count, a pager). */
  after?: ReactNode;
  children: ReactNode;
}) {
  const captionId = useId();
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset is for form controls; this names a table's box
    <div
      className={card ? 'card table-scroll' : 'table-scroll'}
      role="group"
      aria-labelledby={captionId}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls must be reachable by keyboard to scroll
      tabIndex={0}
    >
      <table>
        <caption id={captionId} className={showCaption ? undefined : 'visually-hidden'}>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column, index) => {
              if (column === false) return null;
              const { label, number } =
                typeof column === 'string' ? { label: column, number: false } : column;
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed, their order never changes
                <th key={index} scope="col" className={number ? 'number' : undefined}>
                  {label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {empty && (
            <tr>
              <td colSpan={columns.length}>{empty}</td>
            </tr>
          )}
          {children}
        </tbody>
      </table>
      {after}
    </div>
  );
}
