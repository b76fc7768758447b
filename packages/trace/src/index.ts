/** The trace model and the record codec: the one in-memory form every streamscope part reads. */
export {
  OpKind,
  OpFlag,
  MemKind,
  opKindCount,
  opKindName,
  opKindFromName,
  isValidOpKind,
  isCopyKind,
  isSyncKind,
  memKindName,
  packMemKinds,
  srcMemKind,
  dstMemKind,
} from './op-kind.ts';
export type { OpInput, OpColumns } from './op-table.ts';
export { OpTable, noRef, maxTracks } from './op-table.ts';
export type { FlowColumns, RangeColumns, RangeInput, LaunchConfig } from './side-tables.ts';
export {
  FlowKind,
  FlowTable,
  RangeKind,
  RangeTable,
  LaunchTable,
  launchConfigFields,
} from './side-tables.ts';
export { StringTable } from './strings.ts';
export { IdNumberMap } from './id-number-map.ts';
export { IdSlots } from './id-slots.ts';
export { lowerBoundOf, upperBoundOf } from './order-search.ts';
export type {
  DeviceInfo,
  ProcessInfo,
  TrackInfo,
  GpuStreamTrack,
  HostThreadTrack,
} from './tracks.ts';
export { StreamType, streamTypes, displayOrder, trackLabel, trackLabels } from './tracks.ts';
export type { TraceMeta, SourceFormat, TimingMethod, DistributedInfo } from './meta.ts';
export { defaultMeta } from './meta.ts';
export { Trace } from './trace.ts';
export type { RangeLaneSummary } from './range-summary.ts';
export { rangeLaneSummaries, rangeLaneSummariesOf } from './range-summary.ts';
export { formatDurationNs, formatBytes, bandwidthGBps } from './time-format.ts';
export { CodecError } from './codec/codec-error.ts';
export {
  BatchKind,
  batchMagic,
  codecVersion,
  batchHeaderBytes,
  maxRecordsPerBatch,
} from './codec/batch-format.ts';
export { TraceEncoder, saveTrace, traceChunks } from './codec/trace-encoder.ts';
export { endBatchMaxBytes, endCountsOf } from './codec/end-counts.ts';
export type {
  ApplyResult,
  EndCounts,
  RecordCounts,
  TraceDecoderOptions,
} from './codec/trace-decoder.ts';
export { TraceDecoder, loadTrace } from './codec/trace-decoder.ts';
export { ByteWriter } from './codec/byte-writer.ts';
export type { PositionedFile } from './codec/batch-runs.ts';
export { bytesFile } from './codec/batch-runs.ts';
export type {
  FlowBatch,
  OpBatch,
  OpBatchRange,
  RangeBatch,
  RecordBatches,
} from './codec/record-batches.ts';
export { traceRecordBatches } from './codec/record-batches.ts';
export type { OpBatchReaderOptions } from './codec/op-batch-reader.ts';
export { OpBatchReader } from './codec/op-batch-reader.ts';
export { kernelRunTrace, syntheticTrace } from './test-traces.ts';
export type { TileSet } from './codec/tile-wire.ts';
export { decodeTiles, encodeTiles, tileSetBytes, noKind } from './codec/tile-wire.ts';
