import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/first-screen.ts';
import { i18nReady } from './lib/i18n.ts';
import { reportClientErrors } from './lib/client-errors.ts';
import { App } from './app/App.tsx';

reportClientErrors();
// The first paint waits for the messages of the user's language (one small chunk).
void i18nReady.finally(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
