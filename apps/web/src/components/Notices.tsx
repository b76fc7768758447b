import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

export function Notices() {
  const notices = useApp((s) => s.notices);
  if (notices.length === 0) {
    return null;
  }
  return (
    <div className="notices" role="status">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.tone}`} data-testid="notice">
          <span>{n.text}</span>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={() => appStore.getState().dismissNotice(n.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
