import { appStore } from '../store/index.ts';
import type { Route } from '../store/route.ts';
import { useApp } from '../store/use-app.ts';

const links: readonly { readonly route: Route; readonly label: string }[] = [
  { route: { page: 'traces' }, label: 'Traces' },
  { route: { page: 'run' }, label: 'Run' },
  { route: { page: 'import' }, label: 'Import' },
  { route: { page: 'lessons' }, label: 'Lessons' },
];

export function NavBar() {
  const page = useApp((s) => s.route.page);
  return (
    <header className="nav">
      <span className="brand">streamscope</span>
      <nav>
        {links.map((link) => (
          <button
            key={link.route.page}
            type="button"
            className={page === link.route.page ? 'nav-link active' : 'nav-link'}
            data-testid={`nav-${link.route.page}`}
            onClick={() => appStore.getState().navigate(link.route)}
          >
            {link.label}
          </button>
        ))}
      </nav>
    </header>
  );
}
