import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack as tarPack, type Pack } from 'tar-stream';

/** An entry's stream (a streamx Writable, tar-stream's own stream library, not Node's). */
type Sink = ReturnType<Pack['entry']>;

/**
 * The audit pack's .tar.gz: tar-stream's entries, gzipped (level 9) into a file only its owner
 * reads. Entries go in one at a time and a file is streamed from disk with backpressure, so the
 * events of a long ledger are never held in memory at once.
 *
 * Every name must fit a plain ustar header: ASCII, up to 100 bytes, or up to 255 split at a '/'
 * into a prefix (155) and a name (100). tar-stream writes those as plain ustar and anything else
 * as a pax record, which the system tar reads but the published verifier (`verify-pack` in the
 * protocol package, which an auditor may run on the .tar.gz itself) does not; so such names are
 * refused here rather than written into a pack that verifier cannot open.
 */
export class TarGzWriter {
  private readonly pack: Pack = tarPack();
  private readonly mtime: Date;
  /** The pipeline pack -> gzip -> file: settles once the file is closed, rejects on any stream's error. */
  private readonly done: Promise<void>;
  /** Rejects with the pipeline's error and never resolves, so racing it only ever surfaces a failure. */
  private readonly broken: Promise<never>;

  constructor(path: string, mtime = Math.floor(Date.now() / 1000)) {
    this.mtime = new Date(mtime * 1000);
    // The pack is a streamx stream, not Node's: Readable.from reads it through its async iterator,
    // which carries its backpressure and its errors into Node's pipeline.
    this.done = pipeline(Readable.from(this.pack), createGzip({ level: 9 }), createWriteStream(path, { mode: 0o600 }));
    this.broken = this.done.then(() => new Promise<never>(() => undefined));
    // Handled here so a failure between two adds is not an unhandled rejection; the next add or
    // close() rejects with it.
    this.broken.catch(() => undefined);
  }

  async add(name: string, content: Buffer | string, mode = 0o644): Promise<void> {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    await this.entry(name, body.length, mode, (sink) => this.write(sink, body));
  }

  /** A file streamed from disk; one whose size changes while it is read fails the archive. */
  async addFile(name: string, path: string, mode = 0o644): Promise<void> {
    const size = statSync(path).size;
    await this.entry(name, size, mode, async (sink) => {
      let read = 0;
      for await (const chunk of createReadStream(path)) {
        read += (chunk as Buffer).length;
        if (read > size) break;
        await this.write(sink, chunk as Buffer);
      }
      if (read !== size) throw new Error(`tar: ${path} changed while it was archived`);
    });
  }

  async close(): Promise<void> {
    this.pack.finalize();
    await this.done;
  }

  private async entry(name: string, size: number, mode: number, body: (sink: Sink) => Promise<void>): Promise<void> {
    // A refused name writes nothing, so the writer stays usable.
    checkName(name);
    let settle: (error?: Error | null) => void = () => undefined;
    const ended = new Promise<void>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve());
    });
    ended.catch(() => undefined);
    try {
      const sink = this.pack.entry({ name, size, mode, mtime: this.mtime, type: 'file' }, (error) => settle(error));
      // Its error also reaches the entry's callback (and the pipeline); without a listener it would throw.
      sink.on('error', () => undefined);
      await this.race(body(sink));
      sink.end(null);
      await this.race(ended);
    } catch (error) {
      // A half-written entry cannot be finished: fail the whole archive and wait until its file
      // is closed, so the caller can remove it.
      this.pack.destroy(error as Error);
      await this.done.catch(() => undefined);
      throw error;
    }
  }

  private async write(sink: Sink, chunk: Buffer): Promise<void> {
    // A sink that errors instead of draining destroys the pack, which `broken` surfaces.
    if (!sink.write(chunk)) await this.race(new Promise<void>((resolve) => sink.once('drain', resolve)));
  }

  private race<T>(step: Promise<T>): Promise<T> {
    return Promise.race([step, this.broken]);
  }
}

function checkName(name: string): void {
  if (name === '' || name.startsWith('/') || name.endsWith('/') || name.split('/').includes('..'))
    throw new Error(`tar: bad entry name ${name}`);
  if (!/^[\x20-\x7e]*$/.test(name)) throw new Error(`tar: entry name is not printable ASCII: ${name}`);
  // tar-stream's own split: leading components move to the prefix until the name fits 100 bytes.
  let rest = name;
  let prefix = '';
  while (rest.length > 100) {
    const cut = rest.indexOf('/');
    if (cut === -1) throw new Error(`tar: entry name too long: ${name}`);
    prefix += prefix ? `/${rest.slice(0, cut)}` : rest.slice(0, cut);
    rest = rest.slice(cut + 1);
  }
  if (prefix.length > 155) throw new Error(`tar: entry name too long: ${name}`);
}
