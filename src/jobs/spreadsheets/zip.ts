/**
 * Reading entries of a ZIP file (an XLSX workbook is one) without loading it: the central
 * directory at the end of the file says where each entry lies, and an entry is streamed from the
 * file through inflate. Only what workbooks use is read (stored and deflated entries, no
 * encryption, no ZIP64: a workbook here is at most a few hundred MB).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localHeaderOffset: number;
}

/** Why a file could not be read as a ZIP archive. */
export class NotAZip extends Error {}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

async function readAt(handle: fs.promises.FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** The entries of the archive at `path`, by name. */
export async function zipEntries(path: string): Promise<Map<string, ZipEntry>> {
  const handle = await fs.promises.open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    // The end-of-directory record is the last 22 bytes, or fewer before a comment of up to 64 KB.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = await readAt(handle, size - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === END_OF_DIRECTORY) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new NotAZip('it is not a ZIP archive');
    const count = tail.readUInt16LE(at + 10);
    const directorySize = tail.readUInt32LE(at + 12);
    const directoryOffset = tail.readUInt32LE(at + 16);
    if (directoryOffset + directorySize > size) throw new NotAZip('its table of contents is cut short');
    const directory = await readAt(handle, directoryOffset, directorySize);
    const entries = new Map<string, ZipEntry>();
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (p + 46 > directory.length || directory.readUInt32LE(p) !== DIRECTORY_ENTRY) throw new NotAZip('its table of contents is damaged');
      const nameLength = directory.readUInt16LE(p + 28);
      const extraLength = directory.readUInt16LE(p + 30);
      const commentLength = directory.readUInt16LE(p + 32);
      const name = directory.toString('utf8', p + 46, p + 46 + nameLength);
      entries.set(name, {
        name,
        flags: directory.readUInt16LE(p + 8),
        method: directory.readUInt16LE(p + 10),
        compressedSize: directory.readUInt32LE(p + 20),
        localHeaderOffset: directory.readUInt32LE(p + 42),
      });
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/** An entry's content as a stream of bytes. */
export async function zipEntryStream(path: string, entry: ZipEntry): Promise<Readable> {
  if (entry.flags & 1) throw new NotAZip(`its part ${entry.name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) throw new NotAZip(`its part ${entry.name} is compressed in a way workbooks do not use (method ${entry.method})`);
  const handle = await fs.promises.open(path, 'r');
  let header: Buffer;
  try {
    header = await readAt(handle, entry.localHeaderOffset, 30);
  } finally {
    await handle.close();
  }
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_HEADER) throw new NotAZip(`its part ${entry.name} is damaged`);
  const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (entry.compressedSize === 0) return Readable.from([]);
  const raw = fs.createReadStream(path, { start, end: start + entry.compressedSize - 1 });
  if (entry.method === 0) return raw;
  const inflate = zlib.createInflateRaw();
  raw.on('error', (err) => inflate.destroy(err));
  return raw.pipe(inflate);
}
