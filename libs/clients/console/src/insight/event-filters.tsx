import type { QueryOf, RequestEvent } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';

/** The filters as the form holds them: text, `''` for "any"; times in the reader's local time. */
export interface EventFilter {
  operation: string;
  status: string;
  outcome: string;
  /** `datetime-local` values (`2026-11-26T09:30`), read in the browser's time zone. */
  from: string;
  to: string;
}

export const NO_FILTER: EventFilter = { operation: '', status: '', outcome: '', from: '', to: '' };

/** What a row is called: its operation, or for routes without one the method and route template. */
export const operationOf = (event: RequestEvent) => event.operation ?? `${event.method} ${event.route}`;

type FilterQuery = Pick<QueryOf<'events'>, 'operation' | 'outcome' | 'status' | 'from' | 'to'>;

/** The events route's query for a filter: only what is set, times as UTC ISO instants. */
export function filterQuery(filter: EventFilter): FilterQuery {
  const query: FilterQuery = {};
  if (filter.operation.trim()) query.operation = filter.operation.trim();
  if (filter.outcome) query.outcome = filter.outcome as FilterQuery['outcome'];
  if (filter.status.trim()) query.status = Number(filter.status.trim());
  if (filter.from) query.from = new Date(filter.from).toISOString();
  if (filter.to) query.to = new Date(filter.to).toISOString();
  return query;
}

export const isFiltered = (filter: EventFilter) => Object.values(filter).some((value) => value !== '');

const OUTCOMES = ['accepted', 'failed', 'blocked'];
/** As the route checks it: lower-case words joined by dots (`memory.recall`). */
const OPERATION_PATTERN = '[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*';

/**
 * Filters applied by the server (GET /infrastructure/events takes operation, outcome, status and a
 * time range), so every page of the history is searched, not only the rows loaded. They apply on
 * submit: typing an operation would otherwise ask the server at each letter.
 */
export function EventFilters({
  applied,
  operations,
  onApply,
}: {
  applied: EventFilter;
  /** Operation names to suggest: those seen so far. */
  operations: string[];
  onApply: (next: EventFilter) => void;
}) {
  const id = useId();
  const [draft, setDraft] = useState<EventFilter>(applied);
  const set = (field: keyof EventFilter) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [field]: e.target.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="card filters" onSubmit={submit} aria-label="Filter the history">
      <fieldset className="row">
        <legend>Filter the history</legend>
        <span className="row">
          <label htmlFor={`${id}-operation`}>Operation</label>
          <input
            id={`${id}-operation`}
            list={`${id}-operations`}
            pattern={OPERATION_PATTERN}
            maxLength={100}
            placeholder="any, e.g. memory.recall"
            title="An operation name such as memory.recall"
            value={draft.operation}
            onChange={set('operation')}
          />
          <datalist id={`${id}-operations`}>
            {operations.map((operation) => (
              <option key={operation} value={operation} />
            ))}
          </datalist>
        </span>
        <span className="row">
          <label htmlFor={`${id}-outcome`}>Outcome</label>
          <select id={`${id}-outcome`} value={draft.outcome} onChange={set('outcome')}>
            <option value="">any</option>
            {OUTCOMES.map((outcome) => (
              <option key={outcome} value={outcome}>
                {outcome}
              </option>
            ))}
          </select>
        </span>
        <span className="row">
          <label htmlFor={`${id}-status`}>Status</label>
          <input
            id={`${id}-status`}
            type="number"
            min={100}
            max={599}
            placeholder="any"
            className="narrow"
            value={draft.status}
            onChange={set('status')}
          />
        </span>
        <span className="row">
          <label htmlFor={`${id}-from`}>From</label>
          <input id={`${id}-from`} type="datetime-local" value={draft.from} onChange={set('from')} />
        </span>
        <span className="row">
          <label htmlFor={`${id}-to`}>Until</label>
          <input id={`${id}-to`} type="datetime-local" value={draft.to} onChange={set('to')} />
        </span>
        <span className="row">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="button-secondary"
            disabled={!isFiltered(draft) && !isFiltered(applied)}
            onClick={() => {
              setDraft(NO_FILTER);
              onApply(NO_FILTER);
            }}
          >
            Clear
          </button>
        </span>
      </fieldset>
      <p className="hint">
        Searched on the server, across the whole history; times in your time zone, "until" excluded.
      </p>
    </form>
  );
}
