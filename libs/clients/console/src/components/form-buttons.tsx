/**
 * A form's submit button, showing `busyText` while the call runs, and the button that leaves the form
 * without sending it.
 */
export function FormButtons({
  text,
  busyText,
  busy,
  disabled = false,
  cancelText = 'Cancel',
  onCancel,
}: {
  text: string;
  /** The submit button's text while busy (`Adding…`); without one, it keeps `text`. */
  busyText?: string;
  busy: boolean;
  /** The form is not ready to send (beyond what `required` checks). */
  disabled?: boolean;
  cancelText?: string;
  onCancel: () => void;
}) {
  return (
    <div className="row">
      <button type="submit" disabled={busy || disabled}>
        {busy && busyText ? busyText : text}
      </button>
      <button type="button" className="button-secondary" onClick={onCancel}>
        {cancelText}
      </button>
    </div>
  );
}
