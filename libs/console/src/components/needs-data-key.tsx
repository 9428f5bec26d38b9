import type { ReactNode } from 'react';
import { useDataKey } from '../session/data-key-context.js';

/** Shows its children only once an API key is chosen; until then says where to choose one. */
export function NeedsDataKey({ children }: { children: ReactNode }) {
  const { client } = useDataKey();
  if (!client) return <p className="notice">Choose or create an API key above to use this.</p>;
  return <>{children}</>;
}
