import { type Schemas, TextMemory } from '@text-memory/sdk';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { useSession } from './session-context.js';

/**
 * What the data pages do with the key (write, recall, delete a namespace): the console's own key holds
 * no more, so not telemetry:read nor an owner's export:read, whatever its creator's role would give.
 */
const DATA_PAGE_PERMISSIONS: Schemas['ApiKey']['permissions'] = [
  'memory:write',
  'memory:recall',
  'memory:delete',
];

/** "console (tab) 2026-11-26 09:41 UTC": recognisable on the API keys page, where it can be revoked. */
const ownKeyName = (now: Date) => `console (tab) ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export interface OwnKey {
  name: string;
  key: string;
}

/**
 * Sessions never reach the data plane (the spec's Authentication rule 1): the playground, imports,
 * templates and namespace deletion call it with an API key the user pastes, or with the console's own
 * key for this tab, created in one click. Either is held in this tab's memory only, never stored, and
 * forgotten on reload or logout.
 */
interface DataKeyState {
  /** A client carrying the key, or undefined until one is given. */
  client: TextMemory | undefined;
  /** The key's 12-character prefix, to say which key is in use. */
  prefix: string | undefined;
  /**
   * The key this tab created (the console's own), kept for the tab even while a pasted one is in use.
   * The only secret the console may show again (its "connect an app" snippets): the user just made it.
   */
  ownKey: OwnKey | undefined;
  chooseKey: (apiKey: string | undefined) => void;
  /** Creates the console's own key for this tab (or uses the one it has) and chooses it. */
  takeOwnKey: () => Promise<OwnKey>;
}

const DataKeyContext = createContext<DataKeyState | undefined>(undefined);

export function DataKeyProvider({ children }: { children: ReactNode }) {
  const { client: session, can } = useSession();
  const [apiKey, setApiKey] = useState<string>();
  const [ownKey, setOwnKey] = useState<OwnKey>();

  const takeOwnKey = useCallback(async () => {
    if (ownKey) {
      setApiKey(ownKey.key);
      return ownKey;
    }
    const answer = await session.control.apiKeys.create({
      name: ownKeyName(new Date()),
      // Within the role too: the server refuses a permission the role does not hold.
      permissions: DATA_PAGE_PERMISSIONS.filter((permission) => can(permission)),
    });
    const made = { name: answer.name, key: answer.key };
    setOwnKey(made);
    setApiKey(made.key);
    return made;
  }, [ownKey, session, can]);

  const value = useMemo<DataKeyState>(
    () => ({
      client: apiKey ? new TextMemory({ baseUrl: window.location.origin, apiKey, maxRetries: 1 }) : undefined,
      prefix: apiKey?.slice(0, 12),
      ownKey,
      chooseKey: (next) => setApiKey(next?.trim() || undefined),
      takeOwnKey,
    }),
    [apiKey, ownKey, takeOwnKey],
  );
  return <DataKeyContext.Provider value={value}>{children}</DataKeyContext.Provider>;
}

export function useDataKey(): DataKeyState {
  const state = useContext(DataKeyContext);
  if (!state) throw new Error('useDataKey outside DataKeyProvider');
  return state;
}
