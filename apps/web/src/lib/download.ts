/** Saves a blob as a file through a temporary link (the browser's download prompt). */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke later: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name from a trace title: letters, digits, dot, dash and underscore only. */
export function safeFileName(title: string, extension: string): string {
  const base =
    title
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '') || 'trace';
  return `${base.slice(0, 80)}.${extension}`;
}

// Extensions of the files a trace comes from, stripped from its name however many it has
// (`resnet.pt.trace.json.gz`).
const traceExtensions =
  /(\.(json|gz|zst|xz|bz2|zip|sqlite3?|db|nsys-rep|qdrep|sstrace|trace|pt|pb|kineto))+$/i;

/** A trace's name without the extensions of the file it came from: `resnet.pt.trace.json` → `resnet`. */
export function traceBaseName(title: string): string {
  return title.replace(traceExtensions, '') || title;
}

/**
 * The file name of an exported picture: the trace's base name and the window, then `extension`
 * once (`resnet.pt.trace.json`, 0–2.26 ms, png → `resnet-0.00-2.26ms.png`).
 */
export function exportFileName(title: string, windowFile: string, extension: string): string {
  return safeFileName(`${traceBaseName(title)}-${windowFile}`, extension);
}
