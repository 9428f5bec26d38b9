import { useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { PAGES } from '../pages/page-list.js';
import { useSession } from '../session/session-context.js';

/**
 * The frame around every signed-in page: navigation, who is signed in, log out. On a phone the
 * navigation folds into a Menu button (its 16 links, wrapped, took 270 of a 390 × 844 screen's 844 px
 * above every page); the button is hidden, and the links always shown, on wider screens (styles.css).
 */
export function Layout() {
  const { account, can, logout } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  // A link followed closes the menu: the page it opens is what the user came for.
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger, not a value read
  useEffect(() => setMenuOpen(false), [pathname]);
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
      <nav className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Console">
        <button
          type="button"
          className="button-secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="console-pages"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <ul id="console-pages">
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
