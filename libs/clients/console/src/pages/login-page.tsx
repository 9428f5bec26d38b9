import { type FormEvent, useState } from 'react';
import { ErrorNotice } from '../components/error-notice.js';
import { useAction } from '../hooks/use-action.js';
import { useSessionState } from '../session/session-context.js';

/** Log in with the control plane's session (POST /api/v1/control/sessions). */
export function LoginPage() {
  const { login } = useSessionState();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(() => login(email, password));
  };

  return (
    <main className="login" id="main">
      <form onSubmit={submit} className="card login-card" aria-labelledby="login-title">
        <h1 id="login-title">Text-Memory console</h1>
        <label htmlFor="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorNotice error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
