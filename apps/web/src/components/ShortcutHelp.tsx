import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/** What each key and gesture does in the trace view, in the order people reach for them. */
const shortcuts: readonly (readonly [string, string])[] = [
  ['Wheel over the Gantt', 'Zoom about the pointer (Ctrl + wheel or a pinch too)'],
  ['Wheel over the track labels', 'Scroll the rows (Shift + wheel anywhere, or the scrollbar)'],
  ['Drag', 'Pan in time and scroll the rows'],
  ['W / S', 'Zoom in / out about the mouse when it is over the Gantt'],
  ['A / D', 'Pan earlier / later'],
  ['Click', 'Select an op; its flows are drawn'],
  ['Ctrl / Cmd + click', 'Add an op to the selection, or take it out; the details sum the set'],
  ['] / [', "Next / previous op of the set (a finding's ops, or ctrl-clicked ones)"],
  ['Shift + drag', 'Select an area: the table sums its ops'],
  ['F', 'Zoom to the selection'],
  ['M', "Mark the selected op's range (or the area's) with its duration; M again clears it"],
  ['Esc', 'Clear the selection (or close this help)'],
  ['?', 'Show or hide this help'],
];

/**
 * The shortcut overlay (`?`). The wheel follows Perfetto's convention over the Gantt (zoom) and
 * over the track list (scroll).
 */
export function ShortcutHelp() {
  const open = useApp((s) => s.helpOpen);
  if (!open) {
    return null;
  }
  const close = (): void => appStore.getState().setHelpOpen(false);
  return (
    <div className="help-backdrop" onClick={close} data-testid="shortcut-help-backdrop">
      <div
        className="help-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcut-help-title"
        data-testid="shortcut-help"
        onClick={(event) => event.stopPropagation()}
      >
        <div className="row">
          <h3 id="shortcut-help-title">Keys and mouse</h3>
          <span className="spacer" />
          <button type="button" className="quiet" onClick={close} data-testid="shortcut-help-close">
            Close
          </button>
        </div>
        <table className="help-table">
          <tbody>
            {shortcuts.map(([keys, what]) => (
              <tr key={keys}>
                <th scope="row">{keys}</th>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
