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
  const base = title.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'trace';
  return `${base.slice(0, 80)}.${extension}`;
}
