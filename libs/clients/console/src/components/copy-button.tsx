import { useRef, useState } from 'react';

type Outcome = 'copied' | 'failed' | undefined;

/**
 * Copies a value (a secret shown once) to the clipboard and says so, for screen readers too. Outside a
 * secure context `navigator.clipboard` does not exist, and writeText may be refused (no permission, the
 * tab not focused): then the button says so and the user selects the text shown beside it.
 */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [outcome, setOutcome] = useState<Outcome>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const show = (next: Outcome) => {
    setOutcome(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setOutcome(undefined), next === 'failed' ? 6000 : 2000);
  };
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard outside a secure context');
      await navigator.clipboard.writeText(value);
      show('copied');
    } catch {
      show('failed');
    }
  };
  return (
    <button type="button" className="button-secondary" onClick={() => void copy()}>
      {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Copy failed: select the text' : label}
      <span className="visually-hidden" aria-live="polite">
        {outcome === 'copied'
          ? ' to the clipboard'
          : outcome === 'failed'
            ? ' (the browser refused the clipboard)'
            : ''}
      </span>
    </button>
  );
}
