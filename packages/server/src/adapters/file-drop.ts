import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A directory that external files are dropped into (payment files, lodgement documents): each
 * file is written to a temporary name and renamed into place, so a reader never sees half a file,
 * and is owner-readable only (mode 0600), because these files carry account numbers, tax figures
 * and TFNs. A name outside `safeName` is refused: it comes from an id, never from a caller.
 */
export class FileDrop {
  constructor(
    readonly dir: string,
    private readonly safeName: RegExp,
    private readonly encoding: BufferEncoding,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  write(fileName: string, content: string): void {
    if (!this.safeName.test(fileName)) throw new Error(`unsafe file name ${fileName}`);
    const tmp = join(this.dir, `.${fileName}.${randomBytes(4).toString('hex')}`);
    writeFileSync(tmp, content, { encoding: this.encoding, mode: 0o600 });
    renameSync(tmp, join(this.dir, fileName));
  }
}
