import { type ResponseOf, TextMemory, TextMemoryError } from '@text-memory/sdk';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { loadSessionToken, saveSessionToken } from './session-storage.js';

export type Account = ResponseOf<'getAccount'>;

export interface Session {
  /** The SDK client carrying the session token: every control-plane and read-only call goes through it. */
  client: TextMemory;
  account: Account;
  /** Whether the user's role holds an action (`keys:manage`…): buttons for the others are not shown. */
  can: (action: string) => boolean;
  refreshAccount: () => Promise<void>;
  logout: () => Promise<void>;
}

interface SessionState {
  session: Session | undefined;
  /** True while a stored token is being checked on load. */
  restoring: boolean;
  login: (email: string, password: string) => Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

/** The deployment that served the console; `/api/v1/…` is added by the SDK. */
const baseUrl = () => window.location.origin;

export function SessionProvider({ children }: { children: ReactNode }) {
  const [client, setClient] = useState<TextMemory>();
  const [account, setAccount] = useState<Account>();
  const [restoring, setRestoring] = useState(() => loadSessionToken() !== undefined);

  const forget = useCallback(() => {
    saveSessionToken(undefined);
    setClient(undefined);
    setAccount(undefined);
  }, []);

  const adopt = useCallback(
    async (next: TextMemory) => {
      try {
        setAccount(await next.control.account.get());
        setClient(next);
      } catch (error) {
        // An expired or ended session: back to the login page. Anything else is the caller's to show.
        if (error instanceof TextMemoryError && error.status === 401) forget();
        else throw error;
      }
    },
    [forget],
  );

  useEffect(() => {
    const token = loadSessionToken();
    if (!token) return;
    adopt(new TextMemory({ baseUrl: baseUrl(), sessionToken: token, maxRetries: 1 }))
      .catch(() => forget())
      .finally(() => setRestoring(false));
  }, [adopt, forget]);

  const login = useCallback(
    async (email: string, password: string) => {
      const next = new TextMemory({ baseUrl: baseUrl(), maxRetries: 1 });
      const answer = await next.control.sessions.login({ email, password });
      saveSessionToken(answer.token);
      await adopt(next);
    },
    [adopt],
  );

  const session = useMemo<Session | undefined>(() => {
    if (!client || !account) return undefined;
    const allowed = new Set<string>(account.permissions);
    return {
      client,
      account,
      can: (action) => allowed.has(action),
      refreshAccount: async () => setAccount(await client.control.account.get()),
      logout: async () => {
        try {
          await client.control.sessions.logout();
        } finally {
          forget();
        }
      },
    };
  }, [client, account, forget]);

  return <SessionContext.Provider value={{ session, restoring, login }}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The signed-in session; only pages under the login gate call this. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession before login');
  return session;
}
