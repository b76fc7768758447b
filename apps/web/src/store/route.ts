/** Where the app is. Encoded in the URL hash so a link reopens the same trace and view. */
export type Route =
  | { readonly page: 'traces' }
  | { readonly page: 'run' }
  | { readonly page: 'import' }
  | {
      readonly page: 'trace';
      readonly traceId: string;
      /** Visible window in ns since the trace origin, when the link carries one. */
      readonly view?: { readonly startNs: number; readonly endNs: number };
      readonly selectedOp?: number;
      /** Pinned and hidden tracks and folded row headers, when the link carries them. */
      readonly pinned?: readonly number[];
      readonly hidden?: readonly number[];
      readonly collapsed?: readonly string[];
      /** The optional rows shown under each stream (`lanes=launch,queue`). */
      readonly lanes?: readonly ('launch' | 'queue')[];
    }
  | { readonly page: 'compare'; readonly traceA: string; readonly traceB: string }
  | { readonly page: 'lessons'; readonly lessonId?: string };
