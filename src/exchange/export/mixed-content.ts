/**
 * Text typed into notes and titles may hold EAD inline markup (`<emph render="italic">`,
 * `<extref href="...">`). It goes out as markup when it is well-formed and uses only phrase-level
 * elements and attributes the EAD schema allows there; anything else goes out as escaped text, so
 * an export is always well-formed and schema-valid, whatever was typed.
 */
import { escapeText } from '../xml';

/** Phrase-level elements allowed inside unittitle, unitdate, p, item and the like. */
const PHRASE = new Set([
  'abbr', 'archref', 'bibref', 'corpname', 'date', 'emph', 'expan', 'extptr', 'extref', 'famname', 'function', 'genreform',
  'geogname', 'lb', 'linkgrp', 'name', 'num', 'occupation', 'persname', 'ptr', 'ref', 'subject', 'title',
]);
/** Block elements allowed where paragraphs are (scopecontent, bioghist...). */
const BLOCK = new Set(['p', 'list', 'item', 'blockquote', 'chronlist', 'chronitem', 'eventgrp', 'event', 'defitem', 'label', 'head']);
const ATTRIBUTES = new Set([
  'render', 'altrender', 'audience', 'id', 'type', 'normal', 'role', 'source', 'rules', 'authfilenumber', 'encodinganalog',
  'calendar', 'era', 'label', 'linktype', 'target', 'numeration', 'mark',
]);
const XLINK = new Set(['href', 'role', 'title', 'show', 'actuate', 'type', 'arcrole']);
/** The element names that take xlink attributes (the others' `type`/`role`/`title` are EAD's own). */
const LINKING = new Set(['extref', 'extptr', 'archref', 'bibref', 'ref', 'ptr', 'dao', 'daoloc']);

const TAG = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[A-Za-z][\w:.-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
const ATTR = /([A-Za-z][\w:.-]*)\s*=\s*("[^"<]*"|'[^'<]*')/g;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/y;

/**
 * The text as EAD markup, or undefined when it is not markup this exporter can pass on (then
 * the caller escapes it). Loose `&` are escaped; unprefixed link attributes get their xlink
 * prefix (EAD 2002 DTD files write `href=`, the schema wants `xlink:href=`).
 */
export function eadMarkup(text: string, blocks: boolean): string | undefined {
  let out = '';
  const stack: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '<') {
      TAG.lastIndex = i;
      const m = TAG.exec(text);
      if (!m) return undefined;
      const [whole, closing, name, attrs, selfClosing] = m;
      if (!PHRASE.has(name) && !(blocks && BLOCK.has(name))) return undefined;
      if (closing) {
        if (attrs || selfClosing || stack.pop() !== name) return undefined;
        out += `</${name}>`;
      } else {
        let rewritten = '';
        for (const [, rawName, value] of attrs.matchAll(ATTR)) {
          const local = rawName.replace(/^xlink:/, '');
          const isLink = LINKING.has(name) && XLINK.has(local);
          if (!isLink && !ATTRIBUTES.has(rawName)) return undefined;
          rewritten += ` ${isLink ? `xlink:${local}` : rawName}=${value.replace(/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/g, '&amp;')}`;
        }
        out += `<${name}${rewritten}${selfClosing ? '/' : ''}>`;
        if (!selfClosing) stack.push(name);
      }
      i += whole.length;
    } else if (c === '&') {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(text);
      out += m ? m[0] : '&amp;';
      i += m ? m[0].length : 1;
    } else if (c === '>') {
      out += '&gt;';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return stack.length ? undefined : out;
}

/** Mixed content for an element that holds phrases only (unittitle, unitdate, item...). */
export function phrase(text: string): string {
  return eadMarkup(text, false) ?? escapeText(text);
}

/**
 * Content for an element made of paragraphs (scopecontent, bioghist, daodesc...): markup with
 * its own `<p>`s as is, else each blank-line-separated part in a `<p>`.
 */
export function paragraphs(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return '';
  const asMarkup = eadMarkup(trimmed, true);
  if (asMarkup !== undefined && /^<(p|list|chronlist|blockquote)\b/.test(asMarkup)) return asMarkup;
  return trimmed.split(/\n\s*\n/).map((part) => `<p>${phrase(part.trim()).replace(/\n/g, '<lb/>')}</p>`).join('');
}

/**
 * EAD3 keeps fewer phrase elements inside titles, dates and paragraphs, and links without xlink:
 * EAD 2002 markup that passed `eadMarkup` becomes EAD3's (`extref`/`archref` → `ref href`,
 * `extptr` → `ptr href`, `emph`, `abbr`, `expan`, `lb` as they are); any other element gives up
 * its tags and keeps its text, so the export stays valid against ead3.xsd.
 */
const EAD3_INLINE: Record<string, { name: string; attrs: Record<string, string> }> = {
  emph: { name: 'emph', attrs: { render: 'render', altrender: 'altrender' } },
  lb: { name: 'lb', attrs: {} },
  abbr: { name: 'abbr', attrs: {} },
  expan: { name: 'expan', attrs: {} },
  extref: { name: 'ref', attrs: { 'xlink:href': 'href', 'xlink:title': 'linktitle' } },
  archref: { name: 'ref', attrs: { 'xlink:href': 'href', 'xlink:title': 'linktitle' } },
  ref: { name: 'ref', attrs: { 'xlink:href': 'href', 'xlink:title': 'linktitle' } },
  extptr: { name: 'ptr', attrs: { 'xlink:href': 'href', 'xlink:title': 'linktitle' } },
  ptr: { name: 'ptr', attrs: { 'xlink:href': 'href', 'xlink:title': 'linktitle' } },
};

function toEad3(markup: string, keepParagraphs: boolean): string {
  let out = '';
  let i = 0;
  const renamed: string[] = [];
  while (i < markup.length) {
    if (markup[i] !== '<') {
      const next = markup.indexOf('<', i);
      out += markup.slice(i, next === -1 ? undefined : next);
      i = next === -1 ? markup.length : next;
      continue;
    }
    TAG.lastIndex = i;
    const [whole, closing, name, attrs, selfClosing] = TAG.exec(markup)!;
    i += whole.length;
    const keep = keepParagraphs && name === 'p' ? { name: 'p', attrs: {} } : EAD3_INLINE[name];
    if (closing) {
      const was = renamed.pop();
      if (was) out += `</${was}>`;
      else if (BLOCK.has(name)) out += ' ';
      continue;
    }
    if (!keep) {
      if (!selfClosing) renamed.push('');
      continue;
    }
    let rewritten = '';
    for (const [, attr, value] of attrs.matchAll(ATTR)) if (keep.attrs[attr]) rewritten += ` ${keep.attrs[attr]}=${value}`;
    out += `<${keep.name}${rewritten}${selfClosing ? '/' : ''}>`;
    if (!selfClosing) renamed.push(keep.name);
  }
  return out;
}

/** Mixed content for an EAD3 element that holds phrases only (unittitle, unitdate, part, item...). */
export function ead3Phrase(text: string): string {
  const markup = eadMarkup(text, false);
  return markup === undefined ? escapeText(text) : toEad3(markup, false);
}

/** Content for an EAD3 element made of paragraphs: its own `<p>`s kept, other blocks as their text in paragraphs. */
export function ead3Paragraphs(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return '';
  const asMarkup = eadMarkup(trimmed, true);
  if (asMarkup !== undefined && /^<p\b/.test(asMarkup) && !/<(list|chronlist|blockquote|item|chronitem|defitem|head|label|event|eventgrp)\b/.test(asMarkup)) {
    return toEad3(asMarkup, true);
  }
  const flat = asMarkup === undefined ? escapeText(trimmed) : toEad3(asMarkup, false).trim();
  // Plain text splits into paragraphs at blank lines; text with elements stays one paragraph
  // (an element may span the blank line), its line breaks kept as <lb/>.
  if (!flat.includes('<')) return flat.split(/\n\s*\n/).map((part) => `<p>${part.trim().replace(/\n/g, '<lb/>')}</p>`).join('');
  return `<p>${flat.replace(/\n/g, '<lb/>')}</p>`;
}
