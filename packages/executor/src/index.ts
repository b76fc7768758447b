export type {
  Backend,
  BackendChoice,
  BackendName,
  BackendStatus,
  RunEnd,
  RunHandle,
  RunRequest,
} from './backend.ts';
