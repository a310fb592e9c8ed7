/**
 * The DuckDB store's usage ledger (src/store/ledger.ts): where a charge is
 * made durable before the last bytes of its response are written
 * (docs/metering.md, "When you are charged").
 *
 * A DuckDB commit costs 2–3 ms (a transaction, a WAL write and its fsync),
 * and it sat on every data response's path. The ledger instead appends each
 * charge as one line to a journal file beside the store, opened O_DSYNC so
 * that a write is durable when it returns, and written from the event loop
 * itself: 0.2–0.5 ms at the median, where the same write sent to the thread
 * pool took 4 ms under load (a pool thread waits for a core behind the
 * engine's threads; a separate fdatasync waited twice), and a charge is on
 * every data response's path (README "Performance"). Charges arriving during
 * a rotation share the next write. The charges are applied to
 * `usage_charges` from memory in the background, many per transaction,
 * every APPLY_DELAY_MS. The journal is rotated out and removed only once it
 * has grown past ROTATE_BYTES and all it holds is in the table: a rotation
 * (rename, open, directory fsync) held every charge behind it for 9 ms at the
 * median under load when it came with every apply. Opening the store applies
 * whatever a crash left in the journal, skipping charges the table already
 * holds, so every reader of `usage_charges` sees every charge made durable.
 *
 * A charge can also be written ahead, while its request still runs
 * (`recordAhead`): its line then overlaps the engine's work instead of
 * following it, marked pending. A pending charge counts only once its
 * request confirms it (`{"confirmed":"<request id>"}`), with a durable line
 * written just before the body's last bytes are handed to the socket; a
 * request that fails or is left confirms nothing, and its pending line is
 * simply dropped (nothing is written). Until confirmed it waits in memory,
 * out of the table. A journal file rotated out is kept while it holds a
 * pending charge not yet settled, so that a confirmation is never left
 * without its charge. Recovery applies every charge written plainly (as
 * `record` does, and as every version before pending lines did) and every
 * pending one that a confirmation names: a pending one without its
 * confirmation belonged to a request whose body never left, since the
 * confirmation precedes the last bytes. A `{"withdrawn":…}` line, written by
 * earlier versions when a request written ahead failed, still cancels its charge.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createGroupedLedger, type ChargeAhead, type ChargeEntry, type ChargeLedger } from './ledger.ts';

/** Writes charges into `usage_charges` in one transaction; with `skipKnown`, those whose request id is already there are left out. */
export type ApplyCharges = (charges: readonly ChargeEntry[], skipKnown: boolean) => Promise<void>;

export const JOURNAL_FILE = 'usage-charges.journal';
/** A journal being applied; more than one may be left by a crash. */
const APPLYING_SUFFIX = '.applying';
/**
 * Background applies wait this long so that the charges of a second share one
 * transaction: every apply is an engine commit, taken from the queries' cores
 * (an apply every 50 ms left small queries under load some 20% slower). Readers
 * of the table settle the ledger first, so they never wait for it.
 */
const APPLY_DELAY_MS = 1000;
/** The journal is rotated out once it is this large (some 4,000 charges) and what it holds is applied. */
export const ROTATE_BYTES = 1024 * 1024;
/** Appending, and durable when a write returns (see the header). */
const JOURNAL_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_DSYNC;

/** Charges that an in-memory store writes straight to its table: nothing survives a crash there anyway. */
export function createDirectLedger(apply: ApplyCharges): ChargeLedger {
  return createGroupedLedger((charges) => apply(charges, false));
}

/** Applies what a previous process left in the journal of `dir` (charges already in the table are skipped), then removes it. */
export async function recoverJournal(dir: string, apply: ApplyCharges): Promise<void> {
  const files = journalFiles(dir);
  if (files.length === 0) return;
  const charges = standingCharges(dir, files);
  if (charges.length) await apply(charges, true);
  for (const f of files) fs.rmSync(path.join(dir, f), { force: true });
  syncDir(dir);
}

/**
 * Charges a crash left in the journal of `dir`, not yet in `usage_charges`:
 * a store opened read-only cannot apply them, so a reader that needs the
 * whole ledger (a copy to ClickHouse) checks first.
 */
export function unappliedJournalCharges(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return standingCharges(dir, journalFiles(dir)).length;
}

/** A charge written ahead, waiting for its confirmation; older journals have none. */
type PendingLine = ChargeEntry & { readonly pending: true };
/** The confirmation of a pending charge, with the time it was charged. */
interface ConfirmedLine {
  readonly confirmed: string;
  readonly at: number;
}
/** A journal line: a charge (counted as written), a pending one, its confirmation, or (from earlier versions) the withdrawal of a charge written ahead. */
type JournalLine = ChargeEntry | PendingLine | ConfirmedLine | { readonly withdrawn: string };
const pendingLine = (entry: ChargeEntry) => `${JSON.stringify({ ...entry, pending: true } satisfies PendingLine)}\n`;
const confirmedLine = (requestId: string, at: number) => `${JSON.stringify({ confirmed: requestId, at } satisfies ConfirmedLine)}\n`;
const chargeLines = (entries: readonly ChargeEntry[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

/**
 * The charges of the journal files: the plain ones and the confirmed pending
 * ones, less those withdrawn (a confirmation or withdrawal may sit in a later
 * file than its charge). Complete lines only: a line cut by a crash was never
 * acknowledged, so its request was never charged, nor its body sent.
 */
function standingCharges(dir: string, files: readonly string[]): ChargeEntry[] {
  const charges: ChargeEntry[] = [];
  const pending: ChargeEntry[] = [];
  const confirmed = new Map<string, number>();
  const withdrawn = new Set<string>();
  for (const f of files) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      let parsed: JournalLine;
      try {
        parsed = JSON.parse(line) as JournalLine;
      } catch {
        // The torn last line of a crash.
        continue;
      }
      if ('withdrawn' in parsed) withdrawn.add(parsed.withdrawn);
      else if ('confirmed' in parsed) confirmed.set(parsed.confirmed, parsed.at);
      else if ('pending' in parsed) {
        const { pending: _, ...entry } = parsed;
        pending.push(entry);
      } else charges.push(parsed);
    }
  }
  for (const p of pending) {
    const at = confirmed.get(p.requestId);
    if (at !== undefined) charges.push({ ...p, chargedAt: at });
  }
  return charges.filter((c) => !withdrawn.has(c.requestId));
}

function journalFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f === JOURNAL_FILE || (f.startsWith(`${JOURNAL_FILE}.`) && f.endsWith(APPLYING_SUFFIX)))
    .sort();
}

/** A file's creation, rename or removal survives a crash only once its directory is synced. */
function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

async function syncDirAsync(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const openAsync = (file: string) =>
  new Promise<number>((resolve, reject) => {
    fs.open(file, JOURNAL_FLAGS, 0o600, (e, fd) => (e ? reject(e) : resolve(fd)));
  });
const closeAsync = (fd: number) =>
  new Promise<void>((resolve, reject) => {
    fs.close(fd, (e) => (e ? reject(e) : resolve()));
  });
const writeAsync = (fd: number, data: Buffer) =>
  new Promise<number>((resolve, reject) => {
    fs.write(fd, data, (e, written) => (e ? reject(e) : resolve(written)));
  });
interface Waiting {
  readonly lines: string;
  /**
   * Written in the thread pool rather than from the event loop: a charge
   * written ahead, whose write overlaps its request's engine work, which needs
   * the event loop free to go on (see the header).
   */
  readonly inPool: boolean;
  /** Durable: `generation` counts the rotations before the write, and so names the file it is in. */
  written(generation: number): void;
  reject(e: unknown): void;
}
/** A charge written ahead, durable, waiting for its request to settle it. */
interface Unsettled {
  readonly entry: ChargeEntry;
  readonly generation: number;
}
/** A journal file rotated out, which held the lines of one generation. */
interface Rotated {
  readonly file: string;
  readonly generation: number;
}

/** The open journal file: its descriptor and size, how many times it was rotated out, and whether it may end in a torn line. */
interface OpenJournal {
  readonly dir: string;
  readonly file: string;
  fd: number;
  bytes: number;
  rotations: number;
  torn: boolean;
}

/** Writes what queued up in one write; each waiter learns the generation of the file its lines are in, or the failure. */
async function writeBatch(j: OpenJournal, batch: readonly Waiting[]): Promise<void> {
  try {
    // After a failed write the file may end in a torn line: start on a fresh one, or the
    // next charge would be glued to it and unreadable.
    const text = Buffer.from((j.torn ? '\n' : '') + batch.map((w) => w.lines).join(''));
    j.torn = true;
    // Synchronous on purpose, unless every line is written ahead: see the header.
    const written = batch.every((w) => w.inPool) ? await writeAsync(j.fd, text) : fs.writeSync(j.fd, text);
    if (written !== text.length) throw new Error('short journal write');
    j.torn = false;
    j.bytes += text.length;
    for (const w of batch) w.written(j.rotations);
  } catch (e) {
    for (const w of batch) w.reject(e);
  }
}

/** Renames the journal out and opens a fresh one; the rotated file, or null when the lines stay in the journal. */
async function rotateFile(j: OpenJournal): Promise<string | null> {
  try {
    // Off the event loop: a directory fsync on the main thread holds every response up.
    const to = `${j.file}.${String(++j.rotations).padStart(12, '0')}${APPLYING_SUFFIX}`;
    await fsp.rename(j.file, to);
    let next: number;
    try {
      next = await openAsync(j.file);
    } catch (e) {
      // Keep writing where the charges are.
      await fsp.rename(to, j.file);
      throw e;
    }
    const previous = j.fd;
    j.fd = next;
    j.bytes = 0;
    await closeAsync(previous).catch(() => undefined);
    await syncDirAsync(j.dir);
    return to;
  } catch {
    // Left in the journal: a later rotation, or the next opening of the store, takes it.
    return null;
  }
}

/** The run of a piece of work, while it runs. */
interface Slot {
  running: Promise<void> | null;
}

/**
 * Runs `work` unless it is running. The slot is freed only after the work
 * settles (never before it is taken), then `after` runs so that work queued
 * in between starts a new run.
 */
function runOnce(slot: Slot, work: () => Promise<void>, after: () => void): Promise<void> {
  if (slot.running) return slot.running;
  const p = work().finally(() => {
    slot.running = null;
    after();
  });
  slot.running = p;
  return p;
}

interface JournalWriter {
  /** Queues `lines`; `written` runs once they are durable, before the promise resolves. */
  write(lines: string, inPool: boolean, written: (generation: number) => void): Promise<void>;
  /** Rotates the file out between two writes: the rotated file, or null when its lines stay in the journal. */
  rotate(): Promise<string | null>;
  /** Starts the loop again when something queued up while it was not running. */
  resume(): void;
  /** The loop's run, while it writes or rotates. */
  running(): Promise<void> | null;
  /** Lines wait to be written. */
  queued(): boolean;
}

/**
 * One loop owns the file: it writes what queued up, and between two writes
 * it rotates the file out when asked, so that no write is torn by a rotation.
 */
function createJournalWriter(j: OpenJournal): JournalWriter {
  let queue: Waiting[] = [];
  let rotateRequested: ((rotated: string | null) => void)[] = [];
  const looping: Slot = { running: null };

  const resume = () => {
    if (queue.length || rotateRequested.length) void loop();
  };
  const loop = (): Promise<void> =>
    runOnce(
      looping,
      async () => {
        while (queue.length || rotateRequested.length) {
          if (queue.length) {
            const batch = queue;
            queue = [];
            await writeBatch(j, batch);
          }
          if (rotateRequested.length) {
            const waiters = rotateRequested;
            rotateRequested = [];
            const rotated = await rotateFile(j);
            for (const w of waiters) w(rotated);
          }
        }
      },
      resume,
    );

  return {
    write: (lines, inPool, written) =>
      new Promise<void>((resolve, reject) => {
        queue.push({
          lines,
          inPool,
          written: (generation) => {
            written(generation);
            resolve();
          },
          reject,
        });
        void loop();
      }),
    rotate: () =>
      new Promise<string | null>((resolve) => {
        rotateRequested.push(resolve);
        void loop();
      }),
    resume,
    running: () => looping.running,
    queued: () => queue.length > 0,
  };
}

/** Rotates out a journal grown large; the file rotated out, named with the generation of its lines. */
async function rotateIfLarge(j: OpenJournal, writer: JournalWriter): Promise<Rotated | null> {
  if (j.bytes < ROTATE_BYTES) return null;
  const generation = j.rotations;
  const file = await writer.rotate();
  return file ? { file, generation } : null;
}

/** A rotated file none of whose charges written ahead still waits to be settled. */
function isRemovable(r: Rotated, unsettled: ReadonlyMap<string, Unsettled>): boolean {
  for (const u of unsettled.values()) if (u.generation <= r.generation) return false;
  return true;
}

/** Runs `run` APPLY_DELAY_MS after the first `schedule` since it last ran, so that the charges of that time go in one apply; the timer keeps no process alive. */
function delayedRun(run: () => void): { schedule(): void; cancel(): void } {
  let timer: NodeJS.Timeout | null = null;
  return {
    schedule() {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        run();
      }, APPLY_DELAY_MS);
      timer.unref();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** The journal of a store in `dir`. Call `recoverJournal` first. */
export function createJournalLedger(dir: string, apply: ApplyCharges): ChargeLedger {
  const file = path.join(dir, JOURNAL_FILE);
  const fd = fs.openSync(file, JOURNAL_FLAGS, 0o600);
  const j: OpenJournal = { dir, file, fd, bytes: fs.fstatSync(fd).size, rotations: 0, torn: false };
  syncDir(dir);
  const writer = createJournalWriter(j);
  /** Durable in the journal, not yet handed to an apply. */
  let unapplied: ChargeEntry[] = [];
  /** Pending charges written ahead, durable, neither confirmed nor dropped yet; by request id. */
  const unsettled = new Map<string, Unsettled>();
  /** Journal files rotated out: what they hold is in the table once the next apply after their charges settled succeeds. */
  let rotatedOut: Rotated[] = [];
  const applying: Slot = { running: null };
  let closed = false;
  const applyTimer = delayedRun(() => {
    applyNow().catch(() => undefined);
  });

  /**
   * Moves every durable charge into the table; one apply at a time. Files
   * rotated out before this apply took its charges hold nothing else, so they
   * go once it succeeds; a journal grown large is rotated out after it.
   */
  const applyNow = (): Promise<void> =>
    runOnce(
      applying,
      async () => {
        const charges = unapplied;
        // A file whose charges written ahead are not all settled stays: a confirmed one must reach the table first.
        const covered = rotatedOut.filter(removable);
        unapplied = [];
        rotatedOut = rotatedOut.filter((r) => !covered.includes(r));
        try {
          if (charges.length) await apply(charges, false);
        } catch (e) {
          // Tried again with the next apply; the journal keeps them meanwhile.
          unapplied = charges.concat(unapplied);
          rotatedOut = covered.concat(rotatedOut);
          throw e;
        }
        for (const r of covered) await fsp.rm(r.file, { force: true });
        const rotated = await rotateIfLarge(j, writer);
        if (rotated) rotatedOut.push(rotated);
        if (unapplied.length || rotatedOut.some(removable)) scheduleApply();
      },
      () => writer.resume(),
    );

  const removable = (r: Rotated) => isRemovable(r, unsettled);
  const scheduleApply = () => {
    if (!closed) applyTimer.schedule();
  };

  async function settle(): Promise<void> {
    applyTimer.cancel();
    // Wait for writes in flight, then apply until nothing durable is left out of the table.
    for (;;) {
      const writing = writer.running();
      if (writing) await writing;
      if (applying.running) await applying.running.catch(() => undefined);
      if (unapplied.length === 0 && !rotatedOut.some(removable) && !writer.queued() && !writer.running() && !applying.running) return;
      await applyNow();
    }
  }

  const write = (lines: string, inPool: boolean, written: (generation: number) => void): Promise<void> =>
    closed ? Promise.reject(new Error('the usage ledger is closed')) : writer.write(lines, inPool, written);

  /** Writes the pending charge's confirmation; once durable, the charge stands and goes to the table. */
  const confirm = async (requestId: string, durable: Promise<void>): Promise<void> => {
    await durable;
    const u = unsettled.get(requestId);
    if (!u) throw new Error(`no pending charge for request ${requestId}`);
    const at = Date.now();
    // From the event loop, like every charge on a response's path (see the header).
    await write(confirmedLine(requestId, at), false, () => {
      unsettled.delete(requestId);
      unapplied.push({ ...u.entry, chargedAt: at });
      scheduleApply();
    });
  };

  /** Forgets a pending charge: with no confirmation, its line counts for nothing, so nothing is written. */
  const drop = async (requestId: string, durable: Promise<void>): Promise<void> => {
    // Once its write has ended, so that a line still being written is not left waiting.
    await durable.catch(() => undefined);
    if (unsettled.delete(requestId)) scheduleApply();
  };

  return {
    record(charges) {
      const chargedAt = Date.now();
      const entries = charges.map((c) => ({ ...c, chargedAt }));
      return write(chargeLines(entries), false, () => {
        unapplied.push(...entries);
        scheduleApply();
      });
    },
    recordAhead(charge): ChargeAhead {
      const entry: ChargeEntry = { ...charge, chargedAt: Date.now() };
      const durable = write(pendingLine(entry), true, (generation) => unsettled.set(entry.requestId, { entry, generation }));
      // Whoever settles the charge sees a failure; it is never unhandled.
      durable.catch(() => undefined);
      return { durable, confirm: () => confirm(entry.requestId, durable), drop: () => drop(entry.requestId, durable) };
    },
    settle,
    async close() {
      try {
        await settle();
        // All it holds is in the table, or pending and never to be confirmed: the next opening has nothing to apply.
        fs.ftruncateSync(j.fd, 0);
      } finally {
        closed = true;
        fs.closeSync(j.fd);
      }
    },
  };
}
