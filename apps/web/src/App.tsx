import { NavBar } from './components/NavBar.tsx';
import { Notices } from './components/Notices.tsx';
import { LessonsPage } from './lessons/LessonsPage.tsx';
import { ComparePage } from './pages/ComparePage.tsx';
import { ImportPage } from './pages/ImportPage.tsx';
import { RunPage } from './pages/RunPage.tsx';
import { TracePage } from './pages/TracePage.tsx';
import { TracesPage } from './pages/TracesPage.tsx';
import { useApp } from './store/use-app.ts';

export function App() {
  const page = useApp((s) => s.route.page);
  return (
    <div className="app">
      <NavBar />
      <Notices />
      <main className="page" data-testid={`page-${page}`}>
        {page === 'traces' && <TracesPage />}
        {page === 'run' && <RunPage />}
        {page === 'import' && <ImportPage />}
        {page === 'trace' && <TracePage />}
        {page === 'compare' && <ComparePage />}
        {page === 'lessons' && <LessonsPage />}
      </main>
    </div>
  );
}
