import { type ResponseOf, TextMemory, TextMemoryError } from '@text-memory/sdk';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { ErrorNotice } from '../components/error-notice.js';
import { loadSessionToken, saveSessionToken } from './session-storage.js';

export type Account = ResponseOf<'getAccount'>;

export interface Session {
  /** The SDK client carrying the session token: every control-plane and read-only call goes through it. */
  client: TextMemory;
  account: Account;
  /** Whether the user's role holds an action (`keys:manage`…): buttons for the others are not shown. */
  can: (action: string) => boolean;
  refreshAccount: () => Promise<void>;
  /**
   * Ends the session on the server if it can; this tab forgets it either way. Never rejects. Runs the
   * tasks given to `beforeLogout` first, while the session still holds.
   */
  logout: () => Promise<void>;
  /**
   * A clean-up that needs the session (revoking the tab's own key): awaited by `logout` before the
   * session ends, its failure ignored. Returns the call that removes it.
   */
  beforeLogout: (task: () => Promise<void>) => () => void;
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

/**
 * A 401 on a call that carried this tab's session token means the session expired or was ended
 * elsewhere: `onEnded` forgets it (back to the login page). Every client the provider makes sends its
 * requests through this, so no page has to notice. A stale client's 401 (a token already replaced) and
 * the login call's (no token) are left to their callers.
 */
function watchedFetch(onEnded: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401) {
      const sent = new Headers(init?.headers).get('authorization');
      const token = loadSessionToken();
      if (token && sent === `Bearer ${token}`) onEnded();
    }
    return response;
  };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [client, setClient] = useState<TextMemory>();
  const [account, setAccount] = useState<Account>();
  const [restoring, setRestoring] = useState(() => loadSessionToken() !== undefined);
  /** Why a stored token could not be checked (the API down, a 503): shown with a retry, token kept. */
  const [restoreError, setRestoreError] = useState<unknown>();

  const forget = useCallback(() => {
    saveSessionToken(undefined);
    setClient(undefined);
    setAccount(undefined);
    setRestoreError(undefined);
  }, []);
  // The fetch given to clients is made once; it reaches the current `forget` through this.
  const onEnded = useRef(forget);
  onEnded.current = forget;
  const logoutTasks = useRef(new Set<() => Promise<void>>());
  const makeClient = useCallback(
    (sessionToken?: string) =>
      new TextMemory({
        baseUrl: baseUrl(),
        sessionToken,
        maxRetries: 1,
        fetch: watchedFetch(() => onEnded.current()),
      }),
    [],
  );

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

  const restore = useCallback(() => {
    const token = loadSessionToken();
    if (!token) {
      setRestoring(false);
      return;
    }
    setRestoring(true);
    setRestoreError(undefined);
    // Only a 401 (handled in adopt) drops the token: a 503 or a lost connection is shown with a retry.
    adopt(makeClient(token))
      .catch((error: unknown) => setRestoreError(error ?? new Error('restore failed')))
      .finally(() => setRestoring(false));
  }, [adopt, makeClient]);

  useEffect(() => restore(), [restore]);

  const login = useCallback(
    async (email: string, password: string) => {
      const next = makeClient();
      // No automatic retry: a refused login (429 for up to 15 minutes, 503 while the server is busy
      // checking others) is shown at once with the server's words, and the person can try again.
      const answer = await next.control.sessions.login({ email, password }, { maxRetries: 0 });
      saveSessionToken(answer.token);
      await adopt(next);
    },
    [adopt, makeClient],
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
        // Best effort, and each task bounds its own wait: a failed clean-up never keeps anyone logged in.
        await Promise.allSettled([...logoutTasks.current].map((task) => task()));
        try {
          await client.control.sessions.logout();
        } catch {
          // Already ended (a 401), or the API unreachable: the token is dropped from this tab regardless,
          // and the server ends it when it expires. Nothing is left for the caller to handle.
        } finally {
          forget();
        }
      },
      beforeLogout: (task) => {
        logoutTasks.current.add(task);
        return () => logoutTasks.current.delete(task);
      },
    };
  }, [client, account, forget]);

  if (restoreError && !restoring) {
    return (
      <main className="login" id="main">
        <div className="card login-card">
          <h1>Text-Memory console</h1>
          <p>Your session could not be checked. It is kept in this tab: try again when the API answers.</p>
          <ErrorNotice error={restoreError} />
          <div className="row">
            <button type="button" onClick={restore}>
              Try again
            </button>
            <button type="button" className="button-secondary" onClick={forget}>
              Log in again
            </button>
          </div>
        </div>
      </main>
    );
  }
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
