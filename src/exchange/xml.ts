/**
 * The streaming XML writer every exporter shares. Output collects in a buffer that is handed to
 * the sink whenever it passes a threshold; `await writer.flush()` between records lets a large
 * export go out as it is written (the sink awaits the socket's drain), so memory stays bounded.
 */

export type Attributes = Record<string, string | number | boolean | null | undefined>;
export type Sink = (chunk: string) => void | Promise<void>;

/** Characters XML 1.0 does not allow in a document at all (C0 controls but tab, LF, CR; U+FFFE/U+FFFF; lone surrogates). */
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function stripInvalidXmlChars(text: string): string {
  return text.replace(INVALID_XML_CHARS, '');
}

export function escapeText(text: string): string {
  return stripInvalidXmlChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function attributesText(attrs: Attributes | undefined): string {
  if (!attrs) return '';
  let out = '';
  for (const [name, value] of Object.entries(attrs)) {
    // Absent values are left out, so mappings can pass optional fields straight through.
    if (value === undefined || value === null || value === '') continue;
    out += ` ${name}="${escapeAttribute(String(value))}"`;
  }
  return out;
}

export class XmlWriter {
  private buffer = '';
  private readonly open_: string[] = [];

  constructor(
    private readonly sink: Sink,
    /** Buffered characters that make flush() hand them on. */
    private readonly threshold = 64 * 1024,
  ) {}

  declaration(): this {
    this.buffer += '<?xml version="1.0" encoding="UTF-8"?>\n';
    return this;
  }

  /** A processing instruction or DOCTYPE line written as given (trusted, built by the exporter). */
  prolog(line: string): this {
    this.buffer += `${line}\n`;
    return this;
  }

  open(name: string, attrs?: Attributes): this {
    this.buffer += `<${name}${attributesText(attrs)}>`;
    this.open_.push(name);
    return this;
  }

  close(expected?: string): this {
    const name = this.open_.pop();
    if (name === undefined) throw new Error('XmlWriter: close() with no open element');
    if (expected !== undefined && expected !== name) throw new Error(`XmlWriter: closing <${expected}> but <${name}> is open`);
    this.buffer += `</${name}>`;
    return this;
  }

  /** An element with text content; nothing at all when the text is empty or absent. */
  leaf(name: string, text: string | number | null | undefined, attrs?: Attributes): this {
    if (text === undefined || text === null || text === '') return this;
    this.buffer += `<${name}${attributesText(attrs)}>${escapeText(String(text))}</${name}>`;
    return this;
  }

  /** An element with no content (`<extref href="..."/>`). */
  empty(name: string, attrs?: Attributes): this {
    this.buffer += `<${name}${attributesText(attrs)}/>`;
    return this;
  }

  text(text: string | number): this {
    this.buffer += escapeText(String(text));
    return this;
  }

  /** Markup the caller has checked to be well-formed (inline EAD in notes). */
  raw(markup: string): this {
    this.buffer += stripInvalidXmlChars(markup);
    return this;
  }

  /** Depth of open elements (for indentation-free structural checks in tests). */
  get depth(): number {
    return this.open_.length;
  }

  /** Hands the buffer to the sink once it passes the threshold (or always, with force). */
  async flush(force = false): Promise<void> {
    if (!this.buffer || (!force && this.buffer.length < this.threshold)) return;
    const chunk = this.buffer;
    this.buffer = '';
    await this.sink(chunk);
  }

  /** Checks every element was closed and hands on what is left. */
  async end(): Promise<void> {
    if (this.open_.length) throw new Error(`XmlWriter: <${this.open_.join('><')}> left open`);
    await this.flush(true);
  }
}

/** Collects a whole document in memory (small documents, OAI records, tests). */
export async function xmlToString(write: (w: XmlWriter) => Promise<void> | void): Promise<string> {
  const parts: string[] = [];
  const w = new XmlWriter((chunk) => {
    parts.push(chunk);
  });
  await write(w);
  await w.end();
  return parts.join('');
}
