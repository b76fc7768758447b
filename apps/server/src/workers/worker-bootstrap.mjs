// The first module of every server worker thread. The server runs from TypeScript sources
// through tsx, and a worker thread does not inherit the loader its parent was started with:
// register tsx here, then load the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
