import type { RequestEvent } from '@text-memory/sdk';
import { useId } from 'react';

export interface EventFilter {
  operation: string;
  status: string;
  outcome: string;
}

export const NO_FILTER: EventFilter = { operation: '', status: '', outcome: '' };

/** What a row is called: its operation, or for routes without one the method and route template. */
export const operationOf = (event: RequestEvent) => event.operation ?? `${event.method} ${event.route}`;

export function matches(event: RequestEvent, filter: EventFilter): boolean {
  return (
    (!filter.operation || operationOf(event) === filter.operation) &&
    (!filter.status || String(event.status) === filter.status) &&
    (!filter.outcome || event.outcome === filter.outcome)
  );
}

const distinct = (values: string[]) => [...new Set(values)].sort();

/**
 * Filters over the rows already loaded: the events route filters nothing on the server (it takes only
 * limit, offset and cursor), so the choices are the values this page holds, and the page says so.
 */
export function EventFilters({
  events,
  filter,
  onChange,
}: {
  events: RequestEvent[];
  filter: EventFilter;
  onChange: (next: EventFilter) => void;
}) {
  const id = useId();
  const choices = {
    operation: distinct(events.map(operationOf)),
    status: distinct(events.map((e) => String(e.status))),
    outcome: ['accepted', 'failed', 'blocked'],
  };
  const names: Record<keyof EventFilter, string> = {
    operation: 'Operation',
    status: 'Status',
    outcome: 'Outcome',
  };
  return (
    <fieldset className="row filters">
      <legend>Filter this page</legend>
      {(Object.keys(names) as Array<keyof EventFilter>).map((field) => {
        const values =
          choices[field].includes(filter[field]) || !filter[field]
            ? choices[field]
            : [...choices[field], filter[field]];
        return (
          <span key={field} className="row">
            <label htmlFor={`${id}-${field}`}>{names[field]}</label>
            <select
              id={`${id}-${field}`}
              value={filter[field]}
              onChange={(e) => onChange({ ...filter, [field]: e.target.value })}
            >
              <option value="">any</option>
              {values.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </span>
        );
      })}
      <p className="hint">
        The history cannot be filtered on the server: these filters narrow the rows of the page shown.
      </p>
    </fieldset>
  );
}
