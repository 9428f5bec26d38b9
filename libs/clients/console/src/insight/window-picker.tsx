import { useId } from 'react';
import { useSearchParams } from 'react-router';
import { WINDOWS } from './series.js';

/**
 * The window a page reads, kept in the address (`?window=60`) so a reload or a shared link shows the
 * same numbers. Only the offered lengths are taken; anything else falls back to the default.
 */
export function useWindow(defaultMinutes = 60) {
  const [params, setParams] = useSearchParams();
  const asked = Number(params.get('window'));
  const current =
    WINDOWS.find((w) => w.minutes === asked) ?? WINDOWS.find((w) => w.minutes === defaultMinutes);
  const chosen = current ?? WINDOWS[1];
  const choose = (minutes: number) =>
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        next.set('window', String(minutes));
        return next;
      },
      { replace: true },
    );
  return { minutes: chosen.minutes, label: chosen.label, choose };
}

export function WindowPicker({ minutes, choose }: { minutes: number; choose: (minutes: number) => void }) {
  const id = useId();
  return (
    <div className="row">
      <label htmlFor={id}>Window</label>
      <select id={id} value={minutes} onChange={(e) => choose(Number(e.target.value))}>
        {WINDOWS.map((w) => (
          <option key={w.minutes} value={w.minutes}>
            last {w.label}
          </option>
        ))}
      </select>
    </div>
  );
}
