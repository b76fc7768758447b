import { appStore } from '../store/index.ts';
import { beginActivity } from '../test-mode/activity.ts';
import type { Route } from '../store/route.ts';
import { hashFromRoute, routeFromHash } from './url-state.ts';

/** How long the view must rest before the URL catches up (replaceState is not free). */
const viewUrlDelayMs = 250;

/** The route as the URL should show it now: the trace page adds the live window and selection. */
function currentRoute(): Route {
  const state = appStore.getState();
  const route = state.route;
  if (route.page !== 'trace') {
    return route;
  }
  const hasView = state.traceId === route.traceId && state.viewEndNs > state.viewStartNs;
  return {
    page: 'trace',
    traceId: route.traceId,
    ...(hasView ? { view: { startNs: state.viewStartNs, endNs: state.viewEndNs } } : {}),
    ...(state.selectedOp === null ? {} : { selectedOp: state.selectedOp }),
    ...(state.pinnedTracks.length === 0 ? {} : { pinned: state.pinnedTracks }),
    ...(state.hiddenTracks.length === 0 ? {} : { hidden: state.hiddenTracks }),
    ...(state.collapsedGroups.length === 0 ? {} : { collapsed: state.collapsedGroups }),
    ...(state.trackLanes.length === 0 ? {} : { lanes: state.trackLanes }),
  };
}

/**
 * A link to the trace already open (the hash edited by hand, back/forward, a pasted link): the
 * view, the selection and the pinned, hidden and folded rows follow it. TracePage applies a
 * route only when the trace changes, so this is the path for the same trace.
 */
export function applyRouteToOpenTrace(route: Route): void {
  const state = appStore.getState();
  if (route.page !== 'trace' || state.traceId !== route.traceId) {
    return;
  }
  if (route.view !== undefined) {
    state.setViewport(route.view.startNs, route.view.endNs);
  }
  if ((route.selectedOp ?? null) !== state.selectedOp) {
    state.selectOp(route.selectedOp ?? null);
  }
  state.setTrackFilters({
    pinnedTracks: route.pinned ?? [],
    hiddenTracks: route.hidden ?? [],
    collapsedGroups: route.collapsed ?? [],
  });
}

/**
 * Keeps the URL hash and the store in step: back/forward and pasted links navigate; page changes
 * push a history entry; view and selection changes replace the current one.
 */
export function startUrlSync(): () => void {
  appStore.getState().navigate(routeFromHash(location.hash));
  const onHashChange = (): void => {
    const route = routeFromHash(location.hash);
    if (location.hash !== hashFromRoute(currentRoute())) {
      // The window and selection first, so the route change that follows finds the URL and the
      // store agreeing and pushes no history entry of its own.
      applyRouteToOpenTrace(route);
      appStore.getState().navigate(route);
    }
  };
  window.addEventListener('hashchange', onHashChange);
  let timer: ReturnType<typeof setTimeout> | null = null;
  // A pending URL update counts as work in flight, so tests that read the URL see it settled.
  let endPending: (() => void) | null = null;
  const unsubscribe = appStore.subscribe((state, previous) => {
    if (state.route !== previous.route) {
      const hash = hashFromRoute(currentRoute());
      if (hash !== location.hash) {
        history.pushState(null, '', hash);
      }
      return;
    }
    const viewChanged =
      state.viewStartNs !== previous.viewStartNs ||
      state.viewEndNs !== previous.viewEndNs ||
      state.selectedOp !== previous.selectedOp ||
      state.pinnedTracks !== previous.pinnedTracks ||
      state.hiddenTracks !== previous.hiddenTracks ||
      state.collapsedGroups !== previous.collapsedGroups ||
      state.trackLanes !== previous.trackLanes;
    if (viewChanged && state.route.page === 'trace') {
      if (timer !== null) {
        clearTimeout(timer);
      }
      endPending ??= beginActivity();
      timer = setTimeout(() => {
        timer = null;
        endPending?.();
        endPending = null;
        const hash = hashFromRoute(currentRoute());
        if (hash !== location.hash) {
          history.replaceState(null, '', hash);
        }
      }, viewUrlDelayMs);
    }
  });
  return () => {
    window.removeEventListener('hashchange', onHashChange);
    unsubscribe();
  };
}
