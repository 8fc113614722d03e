/**
 * METS of a digital object and its components (`/digital_objects/mets/:id.xml?dmd=mods|dc`).
 * Valid against mets.xsd: every FLocat carries the required LOCTYPE (ArchivesSpace leaves it out).
 *
 * record → element:
 *   repository → metsHdr/agent ROLE="CREATOR" TYPE="ORGANIZATION" name (CREATEDATE: now)
 *   the object, then each component → dmdSec ID="dmdN" mdWrap MDTYPE="MODS" (or "DC") xmlData (see mods.ts, dc.ts)
 *   published file_versions, grouped by use_statement → fileSec/fileGrp USE / file ID="fN" MIMETYPE / FLocat LOCTYPE="URL" xlink:href=file_uri
 *   the tree → structMap TYPE="logical" div TYPE="item" LABEL=title ORDER DMDID with fptr FILEID per file;
 *              structMap TYPE="physical" the same, keeping only the divisions that hold files
 */
import { isoSeconds } from '../../records/context';
import type { XmlWriter } from '../xml';
import type { Archival } from './common';
import type { ComponentNode } from './components';
import { DcMapping, writeOaiDc } from './dc';
import { ModsMapping, writeMods } from './mods';

const METS_NS = 'http://www.loc.gov/METS/';

/** File formats (file_format_name values) → media types, for file@MIMETYPE. */
const MEDIA_TYPES: Record<string, string> = {
  pdf: 'application/pdf', jpeg: 'image/jpeg', jpg: 'image/jpeg', tiff: 'image/tiff', tif: 'image/tiff', png: 'image/png',
  gif: 'image/gif', jp2: 'image/jp2', mp3: 'audio/mpeg', wav: 'audio/x-wav', mp4: 'video/mp4', mov: 'video/quicktime',
  txt: 'text/plain', xml: 'application/xml', html: 'text/html', zip: 'application/zip',
};

export interface MetsInput {
  record: Archival;
  children: ComponentNode[];
  dmd: 'mods' | 'dc';
  mods: ModsMapping;
  dc: DcMapping;
  componentMods: ModsMapping;
  componentDc: DcMapping;
}

interface Division {
  record: Archival;
  dmdId: string;
  fileIds: string[];
  children: Division[];
}

interface FileEntry {
  id: string;
  use?: string;
  uri: string;
  mimetype?: string;
}

export function writeMets(w: XmlWriter, input: MetsInput): void {
  let dmdCount = 0;
  const files: FileEntry[] = [];
  const divide = (record: Archival, children: ComponentNode[]): Division => {
    const div: Division = { record, dmdId: `dmd${++dmdCount}`, fileIds: [], children: [] };
    for (const fv of record.file_versions ?? []) {
      if (fv.publish !== true || !fv.file_uri) continue;
      const id = `f${files.length + 1}`;
      files.push({ id, use: fv.use_statement, uri: fv.file_uri, mimetype: MEDIA_TYPES[String(fv.file_format_name ?? '').toLowerCase()] });
      div.fileIds.push(id);
    }
    div.children = children.map((c) => divide(c.record, c.children));
    return div;
  };
  const root = divide(input.record, input.children);

  w.open('mets', {
    xmlns: METS_NS,
    'xmlns:mods': 'http://www.loc.gov/mods/v3',
    'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
    'xmlns:xlink': 'http://www.w3.org/1999/xlink',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': `${METS_NS} https://www.loc.gov/standards/mets/mets.xsd`,
    OBJID: input.record.digital_object_id,
    LABEL: input.record.title,
  });
  w.open('metsHdr', { CREATEDATE: isoSeconds(Date.now()) });
  const repo = input.record.repository?._resolved;
  w.open('agent', { ROLE: 'CREATOR', TYPE: 'ORGANIZATION' });
  w.leaf('name', repo?.name ?? 'unknown');
  if (repo?.url) w.leaf('note', repo.url);
  w.close();
  w.close();

  const writeDmd = (div: Division, isRoot: boolean) => {
    w.open('dmdSec', { ID: div.dmdId });
    w.open('mdWrap', { MDTYPE: input.dmd === 'dc' ? 'DC' : 'MODS' });
    w.open('xmlData');
    if (input.dmd === 'dc') writeOaiDc(w, div.record, isRoot ? input.dc : input.componentDc, false, false);
    // Components are described each in their own dmdSec, so MODS here leaves relatedItem out.
    else writeMods(w, div.record, [], { includeUnpublished: false, mapping: isRoot ? input.mods : input.componentMods, standalone: false });
    w.close().close().close();
    for (const child of div.children) writeDmd(child, false);
  };
  writeDmd(root, true);

  w.empty('amdSec');
  if (files.length) {
    w.open('fileSec');
    const uses = [...new Set(files.map((f) => f.use ?? ''))];
    for (const use of uses) {
      w.open('fileGrp', { USE: use || undefined });
      for (const f of files.filter((x) => (x.use ?? '') === use)) {
        w.open('file', { ID: f.id, MIMETYPE: f.mimetype });
        w.empty('FLocat', { LOCTYPE: 'URL', 'xlink:type': 'simple', 'xlink:href': f.uri });
        w.close();
      }
      w.close();
    }
    w.close();
  }

  const writeDiv = (div: Division, order: number, physical: boolean) => {
    const holdsFiles = (d: Division): boolean => d.fileIds.length > 0 || d.children.some(holdsFiles);
    if (physical && !holdsFiles(div)) return;
    w.open('div', { ORDER: order, LABEL: div.record.title ?? div.record.display_string, TYPE: 'item', DMDID: div.dmdId });
    for (const id of div.fileIds) w.empty('fptr', { FILEID: id });
    div.children.forEach((child, i) => writeDiv(child, i + 1, physical));
    w.close();
  };
  w.open('structMap', { TYPE: 'logical' });
  writeDiv(root, 0, false);
  w.close();
  // The physical map needs one division at least: the object itself, with or without files.
  w.open('structMap', { TYPE: 'physical' });
  if (files.length) writeDiv(root, 0, true);
  else w.empty('div', { ORDER: 0, LABEL: root.record.title, TYPE: 'item', DMDID: root.dmdId });
  w.close();
  w.close();
}
