import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

// A bundle kept between runs, made again only when a file it was made from changed: the CLI's
// (`pnpm streamscope`: it starts in 0.2 s where tsx took 0.7, and runs a fifth faster) and the
// bench's import child. Each making goes into a folder of its own, `<name>-<time>-<pid>`, and
// `<name>.json` beside them names the current one with its inputs' sizes and modification
// times. A process running from a folder
// holds it by a file named for its process id in the folder's `in-use/`; a folder that is no
// longer current is removed once no process that holds it runs (a server started before the
// sources changed keeps its threads' and executor child's scripts).

/** Where the server's bundles are kept: `apps/server/.bundle`, four folders below the root. */
export const serverBundlesDir = fileURLToPath(new URL('../.bundle/', import.meta.url));

/**
 * @typedef {object} BundleCacheOptions
 * @property {string} bundlesDir the folder the bundles are kept in
 * @property {string} name the bundle's name: its record is `<name>.json`, its folders `<name>-…`
 * @property {(outDir: string) => Promise<readonly string[]>} build makes the bundle in `outDir`
 *   and returns the files it was made from (absolute paths)
 */

/**
 * The folder of a bundle that is up to date with its inputs, made first if there is none, and
 * held by this process until it exits.
 * @param {BundleCacheOptions} options
 * @returns {Promise<{ dir: string, built: boolean }>}
 */
export async function freshBundle(options) {
  const { bundlesDir, name } = options;
  mkdirSync(bundlesDir, { recursive: true });
  // Another process may remove a folder between our check and our hold (it made a newer one):
  // hold, then look again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = currentBundle(bundlesDir, name);
    if (current === undefined) {
      break;
    }
    const held = hold(current);
    if (held === 'unwritable') {
      // A folder this user may not write (an image's, made at its build): nothing replaces it.
      return { dir: current, built: false };
    }
    if (held === 'held') {
      if (currentBundle(bundlesDir, name) === current) {
        return { dir: current, built: false };
      }
      release(current);
    }
  }
  const dir = path.join(bundlesDir, `${name}-${Date.now().toString(36)}-${process.pid}`);
  mkdirSync(dir);
  if (hold(dir) !== 'held') {
    throw new Error(`cannot write in ${dir}`);
  }
  let inputs;
  try {
    inputs = await options.build(dir);
  } catch (error) {
    release(dir);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // How a bundle is kept is one of its inputs too.
  const made = [...new Set([...inputs, fileURLToPath(import.meta.url)])];
  const record = { dir: path.basename(dir), inputs: made.map(stamp) };
  const recordPath = path.join(bundlesDir, `${name}.json`);
  const temp = `${recordPath}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(record));
  renameSync(temp, recordPath);
  removeUnheld(bundlesDir, name, dir);
  return { dir, built: true };
}

/** The current folder of bundle `name` if every file it was made from is unchanged. */
function currentBundle(bundlesDir, name) {
  let record;
  try {
    record = JSON.parse(readFileSync(path.join(bundlesDir, `${name}.json`), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof record?.dir !== 'string' || !Array.isArray(record.inputs)) {
    return undefined;
  }
  for (const [file, size, mtimeMs] of record.inputs) {
    const now = statOrUndefined(file);
    if (now === undefined || now.size !== size || now.mtimeMs !== mtimeMs) {
      return undefined;
    }
  }
  return path.join(bundlesDir, record.dir);
}

function stamp(file) {
  const s = statSync(file);
  return [file, s.size, s.mtimeMs];
}

function statOrUndefined(file) {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Marks `dir` as used by this process until it exits: 'held', or 'gone' (the folder was
 * removed), or 'unwritable' (this user may not write in it).
 */
function hold(dir) {
  const claim = path.join(dir, 'in-use', String(process.pid));
  try {
    mkdirSync(path.dirname(claim));
  } catch (error) {
    if (error.code === 'ENOENT') {
      return 'gone';
    }
    if (error.code !== 'EEXIST') {
      return 'unwritable';
    }
  }
  try {
    writeFileSync(claim, '');
  } catch (error) {
    return error.code === 'ENOENT' ? 'gone' : 'unwritable';
  }
  process.once('exit', () => rmSync(claim, { force: true }));
  return 'held';
}

function release(dir) {
  rmSync(path.join(dir, 'in-use', String(process.pid)), { force: true });
}

/**
 * Removes the folders of bundle `name` other than `keep` that no running process holds, and
 * the holds of processes that no longer run.
 */
export function removeUnheld(bundlesDir, name, keep) {
  for (const entry of readdirSync(bundlesDir)) {
    if (!entry.startsWith(`${name}-`)) {
      continue;
    }
    const dir = path.join(bundlesDir, entry);
    const claims = path.join(dir, 'in-use');
    let holders = 0;
    for (const pid of readdirOrEmpty(claims)) {
      if (isRunning(Number(pid))) {
        holders++;
      } else {
        rmSync(path.join(claims, pid), { force: true });
      }
    }
    if (holders === 0 && path.resolve(dir) !== path.resolve(keep)) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function readdirOrEmpty(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isRunning(pid) {
  if (!Number.isInteger(pid) || pid <= 0) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return error.code === 'EPERM';
  }
}
