import type { RelatedResult } from '@text-memory/sdk';
import { DataTable, numberColumn } from '../../components/data-table.js';

const weight = (value: number) => value.toLocaleString(undefined, { minimumFractionDigits: 4 });
const held = (matched: boolean) => (matched ? '✓ yes' : '✗ no');

/**
 * Why a recalled record scored what it did (a recall with explain): the cue's terms with their
 * weights and whether the record holds each (the held ones add up to its score), then the tie-break
 * words, which do not score. The stem is shown where it is not the word, as it is what matched.
 */
export function ExplanationTable({
  eventId,
  explanation,
}: {
  eventId: string;
  explanation: NonNullable<RelatedResult['explanation']>;
}) {
  const { terms, tie_break_terms } = explanation;
  return (
    <div className="explanation">
      <DataTable caption={<>Terms of {eventId}</>} columns={['Term', numberColumn('Weight'), 'Matched']}>
        {terms.map((term) => (
          <tr key={term.term}>
            <th scope="row">
              {term.word}
              {term.term !== term.word && <span className="hint"> (stem {term.term})</span>}
            </th>
            <td className="number">{weight(term.weight)}</td>
            <td>{held(term.matched)}</td>
          </tr>
        ))}
      </DataTable>
      {tie_break_terms.length > 0 && (
        <p className="hint">
          Tie-break words (order equal scores, do not score):{' '}
          {tie_break_terms.map((term) => `${term.word} ${term.matched ? '✓' : '✗'}`).join(', ')}
        </p>
      )}
    </div>
  );
}
