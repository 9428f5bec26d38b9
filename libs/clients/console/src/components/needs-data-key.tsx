import type { ReactNode } from 'react';
import { useDataKey } from '../session/data-key-context.js';
import { useSession } from '../session/session-context.js';

/** Shows its children only once an API key is chosen; until then says how to get one. */
export function NeedsDataKey({ children }: { children: ReactNode }) {
  const { client } = useDataKey();
  const { can } = useSession();
  if (client) return <>{children}</>;
  return (
    <p className="notice">
      {can('keys:manage')
        ? 'Create a key for the console above (one click), or paste one, to use this.'
        : 'Paste an API key above to use this: your role cannot create one here, so ask an owner or admin.'}
    </p>
  );
}
