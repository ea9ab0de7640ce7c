import { createGzip } from 'node:zlib';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';

/**
 * A minimal ustar writer (POSIX.1-1988), gzipped: enough for an archive of regular files that any
 * `tar -xzf` reads. Names up to 255 bytes (ustar's prefix and name fields); contents are Buffers
 * held one at a time, or files streamed from disk.
 */
export class TarGzWriter {
  private readonly gzip = createGzip({ level: 9 });
  private readonly out;
  private readonly done: Promise<void>;

  constructor(
    path: string,
    private readonly mtime = Math.floor(Date.now() / 1000),
  ) {
    this.out = createWriteStream(path, { mode: 0o600 });
    this.gzip.pipe(this.out);
    this.done = once(this.out, 'finish').then(() => undefined);
  }

  async add(name: string, content: Buffer | string, mode = 0o644): Promise<void> {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    await this.header(name, body.length, mode);
    await this.write(body);
    await this.pad(body.length);
  }

  /** A file streamed from disk (the events of a long ledger are never held in memory at once). */
  async addFile(name: string, path: string, mode = 0o644): Promise<void> {
    const size = statSync(path).size;
    await this.header(name, size, mode);
    let written = 0;
    for await (const chunk of createReadStream(path)) {
      written += (chunk as Buffer).length;
      await this.write(chunk as Buffer);
    }
    if (written !== size) throw new Error(`tar: ${path} changed while it was archived`);
    await this.pad(size);
  }

  private async pad(size: number): Promise<void> {
    const pad = (512 - (size % 512)) % 512;
    if (pad) await this.write(Buffer.alloc(pad, 0));
  }

  private async header(name: string, size: number, mode: number): Promise<void> {
    if (name.split('/').includes('..') || name.startsWith('/')) throw new Error(`tar: bad entry name ${name}`);
    // ustar: a name up to 100 bytes, or a prefix (up to 155 bytes, ending at a '/') and a name.
    let prefix = '';
    let rest = name;
    if (Buffer.byteLength(name) > 100) {
      const cut = name.lastIndexOf('/', 155);
      prefix = cut > 0 ? name.slice(0, cut) : '';
      rest = cut > 0 ? name.slice(cut + 1) : name;
    }
    if (Buffer.byteLength(rest) > 100 || Buffer.byteLength(prefix) > 155 || rest === '')
      throw new Error(`tar: entry name too long: ${name}`);
    const header = Buffer.alloc(512, 0);
    Buffer.from(rest, 'utf8').copy(header, 0);
    Buffer.from(prefix, 'utf8').copy(header, 345);
    const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0') + '\0';
    header.write(octal(mode, 8), 100, 'ascii');
    header.write(octal(0, 8), 108, 'ascii');
    header.write(octal(0, 8), 116, 'ascii');
    header.write(octal(size, 12), 124, 'ascii');
    header.write(octal(this.mtime, 12), 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write('0', 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    await this.write(header);
  }

  private async write(chunk: Buffer): Promise<void> {
    if (!this.gzip.write(chunk)) await once(this.gzip, 'drain');
  }

  async close(): Promise<void> {
    await this.write(Buffer.alloc(1024, 0));
    this.gzip.end();
    await this.done;
  }
}
