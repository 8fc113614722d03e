/**
 * Finding aids of a resource: EAD 2002 (ead2002.ts), EAD3 (ead3.ts) and the printable PDF
 * (pdf.ts), written over one component walker (walker.ts) from the same parts of a record
 * (parts.ts, tables.ts); the two EAD versions share the order of a description (writer.ts).
 */
export { EAD_RESOLVE, type EadOptions } from './parts';
export { EAD_NS, writeEad } from './ead2002';
export { EAD3_NS, writeEad3 } from './ead3';
export { writePdf } from './pdf';
