import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { startUrlSync } from './lib/url-sync.ts';
import { installTestHooks } from './test-mode/install-test-hooks.ts';
import './base.css';
import './pages.css';

installTestHooks();
startUrlSync();

const root = document.getElementById('root');
if (root === null) {
  throw new Error('index.html has no #root element');
}
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
