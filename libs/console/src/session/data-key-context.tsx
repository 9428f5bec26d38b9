import { TextMemory, type TextMemoryOptions } from '@text-memory/sdk';
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
  /**
   * Another client for the same key with its own fetch (the smoke test reads a 503's report, which the
   * SDK's error does not carry), so the key itself never leaves this context. Undefined without a key.
   */
  clientWith: (options: Pick<TextMemoryOptions, 'fetch'>) => TextMemory | undefined;
}

const DataKeyContext = createContext<DataKeyState | undefined>(undefined);

export function DataKeyProvider({ children }: { children: ReactNode }) {
  const [apiKey, setApiKey] = useState<string>();
  const value = useMemo<DataKeyState>(() => {
    const clientWith = (options: Pick<TextMemoryOptions, 'fetch'>) =>
      apiKey
        ? new TextMemory({ baseUrl: window.location.origin, apiKey, maxRetries: 1, ...options })
        : undefined;
    return {
      client: clientWith({}),
      prefix: apiKey?.slice(0, 12),
      chooseKey: (next) => setApiKey(next?.trim() || undefined),
      clientWith,
    };
  }, [apiKey]);
  return <DataKeyContext.Provider value={value}>{children}</DataKeyContext.Provider>;
}

export function useDataKey(): DataKeyState {
  const state = useContext(DataKeyContext);
  if (!state) throw new Error('useDataKey outside DataKeyProvider');
  return state;
}
