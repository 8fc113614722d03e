/**
 * A streaming XML reader for the importers: it builds small element trees for the blocks a
 * format is made of (an EAD header, a description, one component without its sub-components)
 * and hands each one on as soon as it is complete, so memory follows the largest block, not the
 * file. Namespaces are dropped (EAD 2002 comes with and without one); DOCTYPEs and entities are
 * never fetched or expanded (saxes does neither), so external entities and expansion bombs fail.
 */
import fs from 'node:fs';
import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';
import { escapeAttribute, escapeText } from '../xml';
import { ImportFailed } from './types';
import { letEventLoopTurn } from '../../event-loop';

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: Array<XmlNode | string>;
  /** The line a block's start tag is on (blocks only), for messages that send the reader to it. */
  line?: number;
}

/** Where the reader is: the element path, for messages ("ead/archdesc/dsc/c01[3]/did"). */
export type Path = string[];

export interface BlockHandler {
  /** Whether an element opened at `path` starts a block of its own (its subtree goes to onBlock, not its parent). */
  isBlock(name: string, path: Path): boolean;
  /** A block's own start (before its children), for formats where children need the parent first. */
  onOpen?(node: XmlNode, path: Path): Promise<void> | void;
  /** A block complete (without the sub-blocks, which came through onBlock before it ended). */
  onBlock(node: XmlNode, path: Path): Promise<void> | void;
}

const local = (name: string) => name.slice(name.indexOf(':') + 1);

export async function readBlocks(file: string, displayName: string, handler: BlockHandler, signal?: AbortSignal): Promise<void> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: XmlNode[] = [];
  const path: Path = [];
  // Calls queued in document order and run one after another (the parser does not wait for them).
  const pending: Array<() => Promise<void> | void> = [];
  let failure: Error | undefined;
  let rootSeen = false;
  const where = () => `${displayName}: line ${parser.line}, ${path.join('/') || '(document)'}`;
  parser.on('error', (err) => {
    failure ??= new ImportFailed(`${where()}: not well-formed XML (${err.message.replace(/^.*?:\d+:\d+: /, '')})`);
  });
  parser.on('doctype', () => {
    // The DOCTYPE is read past: no DTD is fetched, and no entity it would declare is expanded.
  });
  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    rootSeen = true;
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes as Record<string, string>)) if (!k.startsWith('xmlns')) attrs[local(k)] = v;
    const node: XmlNode = { name, attrs, children: [] };
    path.push(name);
    if (handler.isBlock(name, path) || !stack.length) {
      (node as XmlNode & { block?: boolean }).block = true;
      node.line = parser.line;
      const at = [...path];
      pending.push(() => handler.onOpen?.(node, at));
    } else stack[stack.length - 1].children.push(node);
    stack.push(node);
    if (stack.length > 2000) failure ??= new ImportFailed(`${where()}: elements nested more than 2,000 deep`);
  });
  parser.on('text', (text) => {
    if (stack.length) stack[stack.length - 1].children.push(text);
  });
  parser.on('cdata', (text) => {
    if (stack.length) stack[stack.length - 1].children.push(text);
  });
  parser.on('closetag', () => {
    const node = stack.pop()!;
    if ((node as XmlNode & { block?: boolean }).block) {
      const at = [...path];
      pending.push(() => handler.onBlock(node, at));
    }
    path.pop();
  });
  const input = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  let decoder: TextDecoder | undefined;
  let offset = 0;
  for await (const bytes of input) {
    if (signal?.aborted) throw new ImportFailed(`${displayName}: canceled`);
    decoder ??= decoderFor(bytes as Buffer, displayName);
    let chunk: string;
    try {
      chunk = decoder.decode(bytes as Buffer, { stream: true });
    } catch {
      throw new ImportFailed(`${displayName}: not valid ${decoder.encoding} text (a byte that cannot be read near byte ${offset}); save the file as UTF-8`);
    }
    offset += (bytes as Buffer).length;
    parser.write(chunk);
    if (failure) break;
    // The handler's writes are awaited chunk by chunk, so a large file never queues in memory.
    await drain(pending);
  }
  if (!failure && decoder) {
    try {
      const tail = decoder.decode();
      if (tail) parser.write(tail);
    } catch {
      throw new ImportFailed(`${displayName}: not valid ${decoder.encoding} text (it ends inside a character); save the file as UTF-8`);
    }
  }
  if (!failure) parser.close();
  if (!failure) await drain(pending);
  input.destroy();
  if (failure) throw failure;
  if (!rootSeen) throw new ImportFailed(`${displayName}: no XML element in the file`);
}

/**
 * Runs the queued calls in order. A chunk holds hundreds of blocks, and the handler's statements
 * (better-sqlite3 answers before it returns) resolve without leaving the turn of the event loop:
 * run straight through, a chunk kept every other request of the process waiting until it was done,
 * reads that no longer wait for the import's transaction included. So the import lets the event
 * loop turn every SLICE_MS (src/event-loop.ts).
 */
async function drain(pending: Array<() => Promise<void> | void>): Promise<void> {
  while (pending.length) {
    await pending.shift()!();
    await letEventLoopTurn();
  }
}

/**
 * The file's text encoding: UTF-8 (the default, and with a BOM), UTF-16 with its BOM, or the
 * Latin-1 family its XML declaration names; bytes that are not valid in it fail the file instead
 * of turning silently into replacement characters.
 */
function decoderFor(head: Buffer, displayName: string): TextDecoder {
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  const declared = /^(?:\uFEFF)?<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.subarray(0, 200).toString('latin1'))?.[1]?.toLowerCase();
  if (!declared || declared === 'utf-8' || declared === 'utf8') return new TextDecoder('utf-8', { fatal: true });
  if (['iso-8859-1', 'latin1', 'iso_8859-1', 'windows-1252', 'cp1252', 'us-ascii', 'ascii'].includes(declared)) return new TextDecoder('windows-1252', { fatal: true });
  try {
    return new TextDecoder(declared, { fatal: true });
  } catch {
    throw new ImportFailed(`${displayName}: the encoding "${declared}" its XML declaration names is not one this importer reads; save the file as UTF-8`);
  }
}

/** The text of a node and its descendants, whitespace collapsed. */
export function textOf(node: XmlNode | undefined): string {
  if (!node) return '';
  const parts: string[] = [];
  const walk = (n: XmlNode) => {
    for (const c of n.children) {
      if (typeof c === 'string') parts.push(c);
      else walk(c);
    }
    if (n.name === 'lb' || n.name === 'p') parts.push(' ');
  };
  walk(node);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** The content of a node as markup (inline tags kept, as a note's text carries them), whitespace collapsed. */
export function markupOf(node: XmlNode): string {
  const out: string[] = [];
  const walk = (n: XmlNode) => {
    for (const c of n.children) {
      if (typeof c === 'string') out.push(escapeText(c));
      else {
        const attrs = Object.entries(c.attrs).map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join('');
        out.push(`<${c.name}${attrs}>`);
        walk(c);
        out.push(`</${c.name}>`);
      }
    }
  };
  walk(node);
  return out.join('').replace(/\s+/g, ' ').trim();
}

export const kids = (node: XmlNode | undefined, name?: string): XmlNode[] =>
  (node?.children ?? []).filter((c): c is XmlNode => typeof c !== 'string' && (name === undefined || c.name === name));
export const kid = (node: XmlNode | undefined, name: string): XmlNode | undefined => kids(node, name)[0];
/** Every descendant of that name, in document order. */
export function descendants(node: XmlNode | undefined, name: string): XmlNode[] {
  const found: XmlNode[] = [];
  const walk = (n: XmlNode) => {
    for (const c of kids(n)) {
      if (c.name === name) found.push(c);
      walk(c);
    }
  };
  if (node) walk(node);
  return found;
}
