// The WASI preview1 imports the package's two Go modules (kernel/plan.wasm,
// kernel/check.wasm; GOOS=wasip1) call, implemented here rather than by
// Node's own WASI: under Node 20 and 22 that one let the garbage collector
// destroy its state while a long check still ran, and crashed the process
// (SIGSEGV or SIGABRT, about one run in three with erasure-check --access;
// the same module under another runtime never did). What is here is small
// and synchronous: arguments, environment, clocks, randomness, stdout and
// stderr to callbacks, sleeping, and, where asked, read-only access to the
// file system through one preopened directory "/" (the check reads the
// cloud assembly or templates it is given; nothing is ever written).
import { randomFillSync } from 'crypto';
import { closeSync, fstatSync, openSync, readdirSync, readSync, Stats, statSync, lstatSync } from 'fs';

const ERRNO = { SUCCESS: 0, ACCES: 2, BADF: 8, INVAL: 28, IO: 29, ISDIR: 31, LOOP: 32, NAMETOOLONG: 37, NOENT: 44, NOSYS: 52, NOTDIR: 54, ROFS: 69 } as const;
const FILETYPE = { UNKNOWN: 0, CHARACTER_DEVICE: 2, DIRECTORY: 3, REGULAR_FILE: 4, SYMBOLIC_LINK: 7 } as const;
// path_open's oflags that would create or change a file, and the rights that write.
const OFLAGS_WRITE = 0x1 | 0x4 | 0x8; // CREAT, EXCL, TRUNC
const RIGHTS_WRITE = 1n | (1n << 6n) | (1n << 8n) | (1n << 19n); // FD_DATASYNC, FD_WRITE, FD_ALLOCATE, PATH_FILESTAT_SET_SIZE: what a read-only open leaves out
const OFLAGS_DIRECTORY = 0x2;
const ALL_RIGHTS = (1n << 30n) - 1n;

/** Thrown through the module when it calls proc_exit. */
export class WasiExit {
  constructor(public readonly code: number) {}
}

/** What a module may see and where its output goes. */
export interface WasiOptions {
  readonly args: string[];
  readonly env: Record<string, string>;
  /** Read-only access to the file system, preopened as "/". */
  readonly files: boolean;
  readonly stdout: (bytes: Uint8Array) => void;
  readonly stderr: (bytes: Uint8Array) => void;
}

interface OpenFile {
  readonly path: string;
  readonly dir: boolean;
  readonly host?: number; // the host's descriptor, for a file
  position: number;
}

const errno = (e: unknown): number => {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT': return ERRNO.NOENT;
    case 'EACCES': case 'EPERM': return ERRNO.ACCES;
    case 'ENOTDIR': return ERRNO.NOTDIR;
    case 'EISDIR': return ERRNO.ISDIR;
    case 'ELOOP': return ERRNO.LOOP;
    case 'ENAMETOOLONG': return ERRNO.NAMETOOLONG;
    case 'EINVAL': return ERRNO.INVAL;
    default: return ERRNO.IO;
  }
};

const filetype = (s: Stats): number =>
  s.isDirectory() ? FILETYPE.DIRECTORY : s.isFile() ? FILETYPE.REGULAR_FILE : s.isSymbolicLink() ? FILETYPE.SYMBOLIC_LINK : FILETYPE.UNKNOWN;

/** One module's WASI: its imports, bound to its memory once instantiated. */
export class Wasi {
  private memory?: { readonly buffer: ArrayBuffer };
  private readonly open = new Map<number, OpenFile>();
  private nextFd = 4;
  private readonly args: Buffer[];
  private readonly env: Buffer[];

  constructor(private readonly options: WasiOptions) {
    this.args = options.args.map((a) => Buffer.from(`${a}\0`));
    this.env = Object.entries(options.env).map(([k, v]) => Buffer.from(`${k}=${v}\0`));
    if (options.files) this.open.set(3, { path: '/', dir: true, position: 0 });
  }

  /** Binds the instance's exported memory. */
  public bind(memory: { readonly buffer: ArrayBuffer }): void {
    this.memory = memory;
  }

  /** Closes every file the module left open. */
  public close(): void {
    for (const [fd, f] of this.open) {
      if (f.host !== undefined) closeSync(f.host);
      if (fd !== 3) this.open.delete(fd);
    }
  }

  private view(): DataView {
    return new DataView(this.memory!.buffer);
  }

  private bytes(p: number, n: number): Uint8Array {
    return new Uint8Array(this.memory!.buffer, p, n);
  }

  private string(p: number, n: number): string {
    return Buffer.from(this.bytes(p, n)).toString('utf8');
  }

  private list(items: Buffer[], ptrs: number, buf: number): number {
    let at = buf;
    items.forEach((b, i) => {
      this.view().setUint32(ptrs + 4 * i, at, true);
      this.bytes(at, b.length).set(b);
      at += b.length;
    });
    return ERRNO.SUCCESS;
  }

  private sizes(items: Buffer[], count: number, size: number): number {
    this.view().setUint32(count, items.length, true);
    this.view().setUint32(size, items.reduce((n, b) => n + b.length, 0), true);
    return ERRNO.SUCCESS;
  }

  private iovs(iovs: number, count: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      out.push(this.bytes(this.view().getUint32(iovs + 8 * i, true), this.view().getUint32(iovs + 8 * i + 4, true)));
    }
    return out;
  }

  private read(fd: number, iovs: number, count: number, out: number, at?: bigint): number {
    const f = this.open.get(fd);
    if (f === undefined || f.host === undefined) return f?.dir ? ERRNO.ISDIR : ERRNO.BADF;
    let total = 0;
    let position = at === undefined ? f.position : Number(at);
    for (const buf of this.iovs(iovs, count)) {
      const n = readSync(f.host, buf, 0, buf.length, position);
      total += n;
      position += n;
      if (n < buf.length) break;
    }
    if (at === undefined) f.position = position;
    this.view().setUint32(out, total, true);
    return ERRNO.SUCCESS;
  }

  private resolve(dirfd: number, p: number, n: number): string | number {
    const dir = this.open.get(dirfd);
    if (dir === undefined || !dir.dir) return ERRNO.BADF;
    const rel = this.string(p, n);
    return rel.startsWith('/') ? rel : `${dir.path.replace(/\/$/, '')}/${rel}`;
  }

  private filestat(buf: number, s: Stats): number {
    const v = this.view();
    v.setBigUint64(buf, BigInt(s.dev), true);
    v.setBigUint64(buf + 8, BigInt(s.ino), true);
    v.setUint8(buf + 16, filetype(s));
    v.setBigUint64(buf + 24, BigInt(s.nlink), true);
    v.setBigUint64(buf + 32, BigInt(s.size), true);
    v.setBigUint64(buf + 40, BigInt(Math.trunc(s.atimeMs * 1e6)), true);
    v.setBigUint64(buf + 48, BigInt(Math.trunc(s.mtimeMs * 1e6)), true);
    v.setBigUint64(buf + 56, BigInt(Math.trunc(s.ctimeMs * 1e6)), true);
    return ERRNO.SUCCESS;
  }

  /** The module's wasi_snapshot_preview1 imports. */
  public imports(): Record<string, (...args: any[]) => number | void> {
    const o = this.options;
    return {
      args_sizes_get: (count: number, size: number) => this.sizes(this.args, count, size),
      args_get: (ptrs: number, buf: number) => this.list(this.args, ptrs, buf),
      environ_sizes_get: (count: number, size: number) => this.sizes(this.env, count, size),
      environ_get: (ptrs: number, buf: number) => this.list(this.env, ptrs, buf),
      clock_time_get: (id: number, _precision: bigint, out: number) => {
        this.view().setBigUint64(out, id === 0 ? BigInt(Date.now()) * 1000000n : process.hrtime.bigint(), true);
        return ERRNO.SUCCESS;
      },
      random_get: (p: number, n: number) => {
        randomFillSync(this.bytes(p, n));
        return ERRNO.SUCCESS;
      },
      sched_yield: () => ERRNO.SUCCESS,
      proc_exit: (code: number) => {
        throw new WasiExit(code);
      },
      poll_oneoff: (subs: number, events: number, count: number, nevents: number) => {
        // Clock subscriptions sleep for their timeout; the rest are ready at once.
        let sleep = 0n;
        for (let i = 0; i < count; i++) {
          const s = subs + 48 * i;
          const e = events + 32 * i;
          const tag = this.view().getUint8(s + 8);
          if (tag === 0) {
            const timeout = this.view().getBigUint64(s + 24, true);
            const absolute = (this.view().getUint16(s + 40, true) & 1) === 1;
            const wait = absolute ? timeout - process.hrtime.bigint() : timeout;
            if (wait > sleep) sleep = wait;
          }
          this.view().setBigUint64(e, this.view().getBigUint64(s, true), true);
          this.view().setUint16(e + 8, ERRNO.SUCCESS, true);
          this.view().setUint8(e + 10, tag);
          this.view().setBigUint64(e + 16, 0n, true);
          this.view().setUint16(e + 24, 0, true);
        }
        if (sleep > 0n) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(sleep / 1000000n));
        this.view().setUint32(nevents, count, true);
        return ERRNO.SUCCESS;
      },
      fd_write: (fd: number, iovs: number, count: number, written: number) => {
        if (fd !== 1 && fd !== 2) return this.open.has(fd) ? ERRNO.ROFS : ERRNO.BADF;
        let total = 0;
        for (const b of this.iovs(iovs, count)) {
          (fd === 1 ? o.stdout : o.stderr)(Buffer.from(b));
          total += b.length;
        }
        this.view().setUint32(written, total, true);
        return ERRNO.SUCCESS;
      },
      fd_read: (fd: number, iovs: number, count: number, out: number) => this.read(fd, iovs, count, out),
      fd_pread: (fd: number, iovs: number, count: number, offset: bigint, out: number) => this.read(fd, iovs, count, out, offset),
      fd_seek: (fd: number, offset: bigint, whence: number, out: number) => {
        const f = this.open.get(fd);
        if (f === undefined || f.host === undefined) return ERRNO.BADF;
        const base = whence === 0 ? 0 : whence === 1 ? f.position : fstatSync(f.host).size;
        const to = base + Number(offset);
        if (to < 0) return ERRNO.INVAL;
        f.position = to;
        this.view().setBigUint64(out, BigInt(to), true);
        return ERRNO.SUCCESS;
      },
      fd_close: (fd: number) => {
        const f = this.open.get(fd);
        if (f === undefined || fd === 3) return ERRNO.BADF;
        if (f.host !== undefined) closeSync(f.host);
        this.open.delete(fd);
        return ERRNO.SUCCESS;
      },
      fd_fdstat_get: (fd: number, buf: number) => {
        const f = this.open.get(fd);
        if (f === undefined && fd > 2) return ERRNO.BADF;
        const v = this.view();
        v.setUint8(buf, f === undefined ? FILETYPE.CHARACTER_DEVICE : f.dir ? FILETYPE.DIRECTORY : FILETYPE.REGULAR_FILE);
        v.setUint16(buf + 2, 0, true);
        v.setBigUint64(buf + 8, ALL_RIGHTS & ~RIGHTS_WRITE, true);
        v.setBigUint64(buf + 16, ALL_RIGHTS & ~RIGHTS_WRITE, true);
        return ERRNO.SUCCESS;
      },
      fd_fdstat_set_flags: () => ERRNO.NOSYS, // stdio stays blocking
      fd_prestat_get: (fd: number, buf: number) => {
        if (fd !== 3 || !o.files) return ERRNO.BADF;
        this.view().setUint8(buf, 0);
        this.view().setUint32(buf + 4, 1, true);
        return ERRNO.SUCCESS;
      },
      fd_prestat_dir_name: (fd: number, p: number, n: number) => {
        if (fd !== 3 || !o.files) return ERRNO.BADF;
        this.bytes(p, Math.min(n, 1)).set(Buffer.from('/').subarray(0, Math.min(n, 1)));
        return ERRNO.SUCCESS;
      },
      fd_filestat_get: (fd: number, buf: number) => {
        const f = this.open.get(fd);
        if (f === undefined) return ERRNO.BADF;
        try {
          return this.filestat(buf, f.host !== undefined ? fstatSync(f.host) : statSync(f.path));
        } catch (e) {
          return errno(e);
        }
      },
      path_filestat_get: (dirfd: number, flags: number, p: number, n: number, buf: number) => {
        const path = this.resolve(dirfd, p, n);
        if (typeof path === 'number') return path;
        try {
          return this.filestat(buf, (flags & 1) === 1 ? statSync(path) : lstatSync(path));
        } catch (e) {
          return errno(e);
        }
      },
      path_open: (dirfd: number, _dirflags: number, p: number, n: number, oflags: number, rights: bigint, _inheriting: bigint, _fdflags: number, out: number) => {
        const path = this.resolve(dirfd, p, n);
        if (typeof path === 'number') return path;
        if ((oflags & OFLAGS_WRITE) !== 0 || (rights & RIGHTS_WRITE) !== 0n) return ERRNO.ROFS;
        try {
          const dir = statSync(path).isDirectory();
          if ((oflags & OFLAGS_DIRECTORY) !== 0 && !dir) return ERRNO.NOTDIR;
          const fd = this.nextFd++;
          this.open.set(fd, { path, dir, host: dir ? undefined : openSync(path, 'r'), position: 0 });
          this.view().setUint32(out, fd, true);
          return ERRNO.SUCCESS;
        } catch (e) {
          return errno(e);
        }
      },
      fd_readdir: (fd: number, buf: number, len: number, cookie: bigint, used: number) => {
        const f = this.open.get(fd);
        if (f === undefined || !f.dir) return ERRNO.BADF;
        let entries;
        try {
          entries = readdirSync(f.path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        } catch (e) {
          return errno(e);
        }
        // Each entry: d_next u64, d_ino u64, d_namlen u32, d_type u8, then its name; the last one that does not fit is cut.
        const out = Buffer.alloc(len);
        let at = 0;
        for (let i = Number(cookie); i < entries.length && at < len; i++) {
          const name = Buffer.from(entries[i].name);
          const head = Buffer.alloc(24);
          head.writeBigUInt64LE(BigInt(i + 1), 0);
          head.writeUInt32LE(name.length, 16);
          head.writeUInt8(entries[i].isDirectory() ? FILETYPE.DIRECTORY : entries[i].isFile() ? FILETYPE.REGULAR_FILE
            : entries[i].isSymbolicLink() ? FILETYPE.SYMBOLIC_LINK : FILETYPE.UNKNOWN, 20);
          const entry = Buffer.concat([head, name]);
          entry.copy(out, at, 0, Math.min(entry.length, len - at));
          at += Math.min(entry.length, len - at);
        }
        this.bytes(buf, len).set(out.subarray(0, len));
        this.view().setUint32(used, at, true);
        return ERRNO.SUCCESS;
      },
      path_readlink: () => ERRNO.INVAL,
      fd_pwrite: () => ERRNO.ROFS,
      fd_filestat_set_size: () => ERRNO.ROFS,
      fd_sync: () => ERRNO.SUCCESS,
      sock_accept: () => ERRNO.NOSYS,
      sock_shutdown: () => ERRNO.NOSYS,
    };
  }
}
