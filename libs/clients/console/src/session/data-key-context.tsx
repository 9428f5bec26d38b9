import { type Schemas, TextMemory } from '@text-memory/sdk';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useSession } from './session-context.js';
import { loadSessionToken } from './session-storage.js';

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

/** How long logout waits for the key's revocation before it ends the session anyway. */
const REVOKE_WAIT_MS = 5_000;

export interface OwnKey {
  id: string;
  name: string;
  key: string;
}

/**
 * Revokes the tab's key as the page goes away (reload, close, another address), with the session token
 * the tab still holds. `keepalive` lets the request outlive the page; nobody is left to read its answer,
 * so a failure (the API down, the session already ended) leaves the key to the API keys page.
 */
function revokeAsThePageGoes(id: string): void {
  const token = loadSessionToken();
  if (!token) return;
  void fetch(`${window.location.origin}/api/v1/control/api-keys/${encodeURIComponent(id)}/revoke`, {
    method: 'POST',
    headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    keepalive: true,
  }).catch(() => undefined);
}

/**
 * Sessions never reach the data plane (the spec's Authentication rule 1): the playground, imports,
 * templates and namespace deletion call it with an API key the user pastes, or with the console's own
 * key for this tab, created in one click. Either is held in this tab's memory only, never stored, and
 * forgotten on reload or logout. The console's own key has no expiry (the API has none), so the tab
 * revokes it on the server too: on logout (before the session ends) and when the page goes away. Both
 * are best effort; a key left behind (the browser killed, the API unreachable) is listed by its name on
 * the API keys page.
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
  const { client: session, can, beforeLogout } = useSession();
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
    const made = { id: answer.id, name: answer.name, key: answer.key };
    setOwnKey(made);
    setApiKey(made.key);
    return made;
  }, [ownKey, session, can]);

  const ownKeyId = ownKey?.id;
  const ownSecret = ownKey?.key;
  // Logout revokes the key while the session still holds; no retry and a bounded wait, as logout must go on.
  useEffect(() => {
    if (!ownKeyId) return;
    return beforeLogout(async () => {
      await session.control.apiKeys.revoke(ownKeyId, { maxRetries: 0, timeoutMs: REVOKE_WAIT_MS });
    });
  }, [ownKeyId, session, beforeLogout]);
  // A reload drops the key from memory while it is still valid: it is revoked as the page goes. A page
  // brought back from the back-forward cache finds it revoked, so it forgets it (one click makes another).
  useEffect(() => {
    if (!ownKeyId) return;
    const onHide = () => revokeAsThePageGoes(ownKeyId);
    const onShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setOwnKey(undefined);
      setApiKey((current) => (current === ownSecret ? undefined : current));
    };
    window.addEventListener('pagehide', onHide);
    window.addEventListener('pageshow', onShow);
    return () => {
      window.removeEventListener('pagehide', onHide);
      window.removeEventListener('pageshow', onShow);
    };
  }, [ownKeyId, ownSecret]);

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
