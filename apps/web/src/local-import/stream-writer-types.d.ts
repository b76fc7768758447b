// @streamscope/importers' gunzip (io/gunzip.ts) writes its input chunks, typed as Uint8Array over
// ArrayBufferLike as Node's stream types allow, into a DecompressionStream's writer. The DOM lib
// types that writer as taking ArrayBuffer-backed views only, so the web app's type check of the
// importers (run in the local import worker) needs the wider overload. The chunks it feeds come
// from Blob streams, whose buffers are plain ArrayBuffers, which DecompressionStream accepts.
export {};

declare global {
  interface WritableStreamDefaultWriter<W> {
    write(chunk?: W | Uint8Array): Promise<void>;
  }
}
