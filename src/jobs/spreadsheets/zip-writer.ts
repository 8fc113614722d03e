/**
 * Writing a ZIP archive (an XLSX workbook is one) as a stream, entry after entry, to an async sink
 * that paces it (the reply's socket): small parts are deflated whole; a large part (a sheet) is
 * written piece by piece through one deflate stream, its CRC and sizes following it in a data
 * descriptor, so nothing is held beyond the piece in hand. No ZIP64: an entry and the archive
 * stay under 4 GB (a sheet of a million rows of a hundred columns is well under it).
 */
import { once } from 'node:events';
import zlib from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const DIRECTORY_ENTRY = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
/** Bit 3: sizes and CRC in a descriptor after the data; bit 11: names in UTF-8. */
const STREAMED = 0x0008;
const UTF8 = 0x0800;
const DEFLATE = 8;

/** zlib.crc32 where Node has it (20.15+); else a table of the same polynomial. */
const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();
export const crc32: (data: Buffer, value?: number) => number = (zlib as { crc32?: (d: Buffer, v?: number) => number }).crc32 ?? ((data, value = 0) => {
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
});

interface Written { name: Buffer; flags: number; crc: number; compressed: number; size: number; offset: number }

/** MS-DOS time and date of `d` (what ZIP headers carry). */
function dosTime(d: Date): [number, number] {
  return [(d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1), ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate()];
}

export class ZipWriter {
  private offset = 0;
  private readonly written: Written[] = [];
  private readonly time: [number, number] = dosTime(new Date());

  constructor(private readonly send: (chunk: Buffer) => Promise<void>) {}

  /** Sends bytes of the archive, counting where the next entry starts. */
  async out(chunk: Buffer): Promise<void> {
    if (!chunk.length) return;
    this.offset += chunk.length;
    await this.send(chunk);
  }

  private localHeader(name: Buffer, flags: number, crc: number, compressed: number, size: number): Buffer {
    const h = Buffer.alloc(30);
    h.writeUInt32LE(LOCAL_HEADER, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(flags, 6);
    h.writeUInt16LE(DEFLATE, 8);
    h.writeUInt16LE(this.time[0], 10);
    h.writeUInt16LE(this.time[1], 12);
    h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(compressed, 18);
    h.writeUInt32LE(size, 22);
    h.writeUInt16LE(name.length, 26);
    return Buffer.concat([h, name]);
  }

  /** A whole small entry, deflated at once. */
  async file(name: string, content: string): Promise<void> {
    const data = Buffer.from(content, 'utf8');
    const compressed = zlib.deflateRawSync(data);
    const entry: Written = { name: Buffer.from(name, 'utf8'), flags: UTF8, crc: crc32(data), compressed: compressed.length, size: data.length, offset: this.offset };
    this.written.push(entry);
    await this.out(this.localHeader(entry.name, entry.flags, entry.crc, entry.compressed, entry.size));
    await this.out(compressed);
  }

  /** An entry written piece by piece (the caller closes it before the next entry). */
  async stream(name: string): Promise<ZipEntryWriter> {
    const entry: Written = { name: Buffer.from(name, 'utf8'), flags: UTF8 | STREAMED, crc: 0, compressed: 0, size: 0, offset: this.offset };
    this.written.push(entry);
    await this.out(this.localHeader(entry.name, entry.flags, 0, 0, 0));
    return new ZipEntryWriter(this, entry);
  }

  /** The central directory and its end record: the archive is complete. */
  async end(): Promise<void> {
    const start = this.offset;
    const records = this.written.map((e) => {
      const d = Buffer.alloc(46);
      d.writeUInt32LE(DIRECTORY_ENTRY, 0);
      d.writeUInt16LE(20, 4);
      d.writeUInt16LE(20, 6);
      d.writeUInt16LE(e.flags, 8);
      d.writeUInt16LE(DEFLATE, 10);
      d.writeUInt16LE(this.time[0], 12);
      d.writeUInt16LE(this.time[1], 14);
      d.writeUInt32LE(e.crc, 16);
      d.writeUInt32LE(e.compressed, 20);
      d.writeUInt32LE(e.size, 24);
      d.writeUInt16LE(e.name.length, 28);
      d.writeUInt32LE(e.offset, 42);
      return Buffer.concat([d, e.name]);
    });
    const directory = Buffer.concat(records);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_DIRECTORY, 0);
    end.writeUInt16LE(records.length, 8);
    end.writeUInt16LE(records.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(start, 16);
    await this.out(Buffer.concat([directory, end]));
  }
}

/** A streamed entry: text is gathered by write() and deflated and sent by flush() (when `full`, or when the caller wants it out). */
export class ZipEntryWriter {
  private pieces: string[] = [];
  private gathered = 0;
  private ready: Buffer[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private readonly deflate = zlib.createDeflateRaw({ level: 4 });

  constructor(private readonly zip: ZipWriter, private readonly entry: Written) {
    this.deflate.on('data', (chunk: Buffer) => {
      this.ready.push(chunk);
      entry.compressed += chunk.length;
    });
  }

  write(text: string): void {
    this.pieces.push(text);
    this.gathered += text.length;
  }

  /** Whether enough is gathered to be worth a flush (about 256 KB of text). */
  get full(): boolean {
    return this.gathered >= 1 << 18;
  }

  /**
   * Hands what is gathered to deflate and sends what deflate has made so far, at the sink's pace.
   * Deflate works on its own thread meanwhile: the caller makes its next rows while this piece is
   * compressed, and waits for it only at the next flush (one piece in flight, so memory stays bounded).
   */
  async flush(): Promise<void> {
    await this.inFlight;
    if (this.gathered) {
      const data = Buffer.from(this.pieces.join(''), 'utf8');
      this.pieces = [];
      this.gathered = 0;
      this.entry.crc = crc32(data, this.entry.crc);
      this.entry.size += data.length;
      this.inFlight = new Promise<void>((resolve, reject) => this.deflate.write(data, (err) => (err ? reject(err) : resolve())));
      // Not left unhandled while it waits for the next flush; that flush (or close) raises it.
      this.inFlight.catch(() => {});
    }
    await this.sendReady();
  }

  private async sendReady(): Promise<void> {
    const chunks = this.ready;
    this.ready = [];
    await this.zip.out(Buffer.concat(chunks));
  }

  /** Ends the entry: the rest deflated and sent, then its descriptor. */
  async close(): Promise<void> {
    await this.flush();
    await this.inFlight;
    const ended = once(this.deflate, 'end');
    this.deflate.end();
    await ended;
    await this.sendReady();
    const d = Buffer.alloc(16);
    d.writeUInt32LE(DATA_DESCRIPTOR, 0);
    d.writeUInt32LE(this.entry.crc, 4);
    d.writeUInt32LE(this.entry.compressed, 8);
    d.writeUInt32LE(this.entry.size, 12);
    await this.zip.out(d);
  }
}
