import { NavLink, Outlet } from 'react-router';
import { PAGES } from '../pages/page-list.js';
import { useSession } from '../session/session-context.js';

/** The frame around every signed-in page: navigation (a menu on a phone), who is signed in, log out. */
export function Layout() {
  const { account, can, logout } = useSession();
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Text-Memory</span>
        <span className="who">
          {account.user.email} · {account.user.role} · {account.tenant.name}
        </span>
        <button type="button" className="button-secondary" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      <nav className="sidebar" aria-label="Console">
        <ul>
          {PAGES.filter((page) => page.nav !== false && (!page.needs || can(page.needs))).map((page) => (
            <li key={page.path}>
              <NavLink to={page.path} end={page.path === '/'}>
                {page.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
