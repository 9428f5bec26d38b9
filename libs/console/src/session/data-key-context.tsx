import { TextMemory } from '@text-memory/sdk';
import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';

/**
 * Sessions never reach the data plane (the spec's Authentication rule 1): the playground, imports,
 * templates and namespace deletion call it with an API key the user pastes or creates here. The key is
 * held in this tab's memory only, never stored, and forgotten on reload or logout.
 */
interface DataKeyState {
  /** A client carrying the key, or undefined until one is given. */
  client: TextMemory | undefined;
  /** The key's 12-character prefix, to say which key is in use. */
  prefix: string | undefined;
  chooseKey: (apiKey: string | undefined) => void;
}

const DataKeyContext = createContext<DataKeyState | undefined>(undefined);

export function DataKeyProvider({ children }: { children: ReactNode }) {
  const [apiKey, setApiKey] = useState<string>();
  const value = useMemo<DataKeyState>(
    () => ({
      client: apiKey ? new TextMemory({ baseUrl: window.location.origin, apiKey, maxRetries: 1 }) : undefined,
      prefix: apiKey?.slice(0, 12),
      chooseKey: (next) => setApiKey(next?.trim() || undefined),
    }),
    [apiKey],
  );
  return <DataKeyContext.Provider value={value}>{children}</DataKeyContext.Provider>;
}

export function useDataKey(): DataKeyState {
  const state = useContext(DataKeyContext);
  if (!state) throw new Error('useDataKey outside DataKeyProvider');
  return state;
}
