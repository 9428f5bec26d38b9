import { Route, Routes } from 'react-router';
import { Layout } from './components/layout.js';
import { LoginPage } from './pages/login-page.js';
import { PAGES } from './pages/page-list.js';
import { DataKeyProvider } from './session/data-key-context.js';
import { useSessionState } from './session/session-context.js';

export function App() {
  const { session, restoring } = useSessionState();
  if (restoring) return <p className="loading">Loading…</p>;
  if (!session) return <LoginPage />;
  return (
    // Keyed by user: a key chosen by one user is never offered to the next one in this tab.
    <DataKeyProvider key={session.account.user.id}>
      <Routes>
        <Route element={<Layout />}>
          {PAGES.map((page) => (
            <Route
              key={page.path}
              path={page.path}
              // Typed in the address bar, a page the role lacks says so instead of failing call by call.
              element={
                !page.needs || session.can(page.needs) ? (
                  page.element
                ) : (
                  <p role="alert">Your role does not allow this page ({page.needs}).</p>
                )
              }
            />
          ))}
          <Route path="*" element={<p>No such page.</p>} />
        </Route>
      </Routes>
    </DataKeyProvider>
  );
}
