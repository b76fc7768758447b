// What a native build depends on, as one digest: every file of native/src (name and bytes), the
// build script, the compiler and toolkit found, Node's headers and ABI. A build whose digest
// matches the last successful one (build/status.json) and whose outputs exist is up to date, so
// `pnpm install` (run by every start) does not spend minutes compiling the same addon again.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The digest of the build's inputs; `settings` are the strings that also decide the output. */
export function buildInputsDigest(srcDir, scriptFile, settings) {
  const hash = createHash('sha256');
  const put = (label, bytes) => {
    hash.update(`${label}\0${bytes.length}\0`);
    hash.update(bytes);
  };
  for (const file of readdirSync(srcDir).sort()) {
    if (/\.(cc|cu|h)$/.test(file)) {
      put(file, readFileSync(path.join(srcDir, file)));
    }
  }
  put('build script', readFileSync(scriptFile));
  for (const setting of settings) {
    put('setting', Buffer.from(String(setting)));
  }
  return hash.digest('hex');
}
