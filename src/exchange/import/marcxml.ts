/**
 * MARCXML import (`marcxml`): each bibliographic record of a file becomes a resource (a
 * collection), with agents and subjects matched or created, in one transaction per file. Records
 * are read one at a time (a file may be a whole catalogue).
 *
 * field → record (as ArchivesSpace's MARCXML converter):
 *   245 $a $b $n $p → title; $f → inclusive date; $g → bulk date (years → begin/end)
 *   099, 090, 092, 096, 098 $a (else 852 $h, else 001) → id_0; 300 $a ($f) → extents
 *   041 $a (else 008/35-37) → lang_materials; 040 $b → finding_aid_language
 *   100, 110, 111, 700, 710, 711 → linked agents (creator; $4/$e relator); 600, 610, 611 → agents (subject)
 *   650 topical, 651 geographic, 655 genre_form, 656 occupation, 657 function, 630 uniform_title
 *     ($a, then $x $y $z $v as terms; source from ind2 0 = lcsh, 7 = $2) → subjects
 *   520 → scopecontent (ind1 3: abstract), 545 → bioghist, 506 → accessrestrict, 540 → userestrict,
 *   541 → acqinfo, 544 → relatedmaterial, 555 → otherfindaid, 351 → arrangement, 561 → custodhist,
 *   583 → processinfo, 524 → prefercite, 535 → originalsloc, 530 → altformavail, 546 → langmaterial, 500 → odd
 */
import type { Obj } from '../../json';
import { importFile, ImportSession } from './session';
import { kids, Path, readBlocks, textOf, XmlNode } from './xml-blocks';
import { ImportFailed, Importer, ImportReport } from './types';

const AGENT_TAGS: Record<string, [string, 'creator' | 'subject']> = {
  100: ['agent_person', 'creator'], 110: ['agent_corporate_entity', 'creator'], 111: ['agent_corporate_entity', 'creator'],
  700: ['agent_person', 'creator'], 710: ['agent_corporate_entity', 'creator'], 711: ['agent_corporate_entity', 'creator'],
  600: ['agent_person', 'subject'], 610: ['agent_corporate_entity', 'subject'], 611: ['agent_corporate_entity', 'subject'],
};
const SUBJECT_TAGS: Record<string, string> = { 650: 'topical', 651: 'geographic', 655: 'genre_form', 656: 'occupation', 657: 'function', 630: 'uniform_title' };
const NOTE_TAGS: Record<string, string> = {
  520: 'scopecontent', 545: 'bioghist', 506: 'accessrestrict', 540: 'userestrict', 541: 'acqinfo', 544: 'relatedmaterial',
  555: 'otherfindaid', 351: 'arrangement', 561: 'custodhist', 583: 'processinfo', 524: 'prefercite', 535: 'originalsloc',
  530: 'altformavail', 500: 'odd',
};
const SOURCES: Record<string, string> = { 0: 'lcsh', 1: 'lcsh', 2: 'mesh' };
const EXTENT = /^([\d.,]+)\s*(.*)$/;

/** Trailing ISBD punctuation of a MARC subfield ("Papers, 1900-1950." → "Papers, 1900-1950"). */
const clean = (text: string) => text.replace(/\s*[,:;/.]\s*$/, '').trim();

type MarcMode = 'resource' | 'accession' | 'subjects_and_agents';

/**
 * The accession a bibliographic record makes, from what its resource mapping built: ArchivesSpace's
 * accession converter keeps the title, identifier, dates, extents, languages, agents and subjects,
 * drops the notes and the finding-aid fields, and reads 506 (access restrictions; ind1 1: restricted),
 * 520 (content description), 540 (use restrictions) and 541 and 561 (provenance) into its own fields.
 * Dated the day of the import.
 */
function accessionOf(resource: Obj, fieldsOf: (tag: string) => Array<{ ind1?: string; text: string }>): Obj {
  const joined = (tag: string) => fieldsOf(tag).map((f) => f.text.trim()).filter(Boolean).join(' ');
  const body: Obj = {
    title: resource.title, id_0: resource.id_0, publish: resource.publish, accession_date: new Date().toISOString().slice(0, 10),
    dates: resource.dates, extents: resource.extents, linked_agents: resource.linked_agents, subjects: resource.subjects,
    lang_materials: (resource.lang_materials as Obj[]).filter((l) => l.language_and_script),
  };
  if (joined('506')) body.access_restrictions_note = joined('506');
  if (fieldsOf('506').some((f) => f.ind1 === '1')) body.access_restrictions = true;
  if (joined('520')) body.content_description = joined('520');
  if (fieldsOf('540').length) {
    body.use_restrictions = true;
    if (joined('540')) body.use_restrictions_note = joined('540');
  }
  const provenance = [joined('541'), joined('561')].filter(Boolean).join(' ');
  if (provenance) body.provenance = provenance;
  return body;
}

class MarcImport extends ImportSession {
  private resources = 0;
  /**
   * What each bibliographic record becomes: a resource (marcxml), an accession (marcxml_accession),
   * or nothing but its subjects and agents (marcxml_subjects_and_agents).
   */
  mode: MarcMode = 'resource';

  isBlock(name: string): boolean {
    return name === 'record';
  }

  async onOpen(node: XmlNode, path: Path): Promise<void> {
    if (path.length === 1 && node.name !== 'collection' && node.name !== 'record') {
      throw new ImportFailed(`${this.input.name}: not a MARCXML file (its root element is <${node.name}>, not <collection> or <record>)`);
    }
  }

  async onBlock(node: XmlNode, path: Path): Promise<void> {
    if (node.name !== 'record') return;
    const fields = (tag: string) => kids(node, 'datafield').filter((d) => d.attrs.tag === tag);
    const control = (tag: string) => textOf(kids(node, 'controlfield').find((c) => c.attrs.tag === tag));
    const sub = (d: XmlNode | undefined, codes: string) => kids(d, 'subfield').filter((x) => codes.includes(x.attrs.code ?? '')).map((x) => textOf(x)).filter(Boolean);
    const where = `${path.join('/')}[${this.resources + 1}]`;
    const title = clean(sub(fields('245')[0], 'abnp').join(' '));
    if (!title && this.mode !== 'subjects_and_agents') throw new ImportFailed(`${this.input.name}: ${where}/datafield[245]: no title`);
    const body: Obj = { title, level: 'collection', publish: true };
    const idField = ['099', '090', '092', '096', '098'].map((t) => sub(fields(t)[0], 'a').join(' ')).find(Boolean)
      ?? sub(fields('852')[0], 'h').join(' ') ?? '';
    body.id_0 = (idField || control('001') || `${this.input.name.replace(/\.[^.]+$/, '')}-${this.resources + 1}`).slice(0, 255);
    if (!idField) this.warn(`${where}: no call number (099/090/852 $h); the identifier is ${body.id_0}`);
    body.dates = [];
    for (const [code, type] of [['f', 'inclusive'], ['g', 'bulk']] as const) {
      for (const expression of sub(fields('245')[0], code).map(clean)) {
        const years = expression.match(/\b\d{4}\b/g) ?? [];
        body.dates.push({ date_type: type, label: 'creation', expression, ...(years.length ? { begin: years[0], end: years[years.length - 1] } : {}) });
      }
    }
    // ArchivesSpace's accession mapping drops the 008 dates, and an accession needs none.
    if (!body.dates.length && this.mode !== 'accession') {
      const f008 = control('008');
      const [d1, d2] = [f008.slice(7, 11), f008.slice(11, 15)];
      if (/^\d{4}$/.test(d1)) body.dates.push({ date_type: /^\d{4}$/.test(d2) && d2 !== d1 ? 'inclusive' : 'single', label: 'creation', begin: d1, ...(/^\d{4}$/.test(d2) && d2 !== d1 ? { end: d2 } : {}) });
      else {
        body.dates.push({ date_type: 'single', label: 'creation', expression: 'undated' });
        this.warn(`${where}: no date (245 $f $g, 008); recorded as "undated"`);
      }
    }
    body.extents = fields('300').flatMap((f) => {
      const text = [...sub(f, 'a'), ...sub(f, 'f')].join(' ');
      const m = EXTENT.exec(clean(text));
      if (!m) return [];
      return [{ portion: 'whole', number: m[1].replace(/,/g, ''), extent_type: this.value('extent_extent_type', /lin(ear|\.)?\s*(f(ee|oo)?t|ft)/i.test(m[2]) ? 'linear_feet' : clean(m[2]) || 'items') }];
    });
    if (!body.extents.length && this.mode !== 'accession') {
      body.extents = [{ portion: 'whole', number: '0', extent_type: this.value('extent_extent_type', 'linear_feet'), container_summary: 'extent not stated in the imported record' }];
      this.warn(`${where}: no extent (300); recorded as 0 with a note saying it was not stated`);
    }
    const languages = fields('041').flatMap((f) => sub(f, 'a')).flatMap((a) => a.match(/[a-z]{3}/g) ?? []);
    const f008language = control('008').slice(35, 38);
    const codes = languages.length ? languages : /^[a-z]{3}$/.test(f008language) ? [f008language] : ['und'];
    body.lang_materials = [...new Set(codes)].map((language) => ({ language_and_script: { language } }));
    body.finding_aid_language = sub(fields('040')[0], 'b')[0] ?? 'und';
    body.finding_aid_script = 'Zyyy';
    body.notes = [];
    for (const d of kids(node, 'datafield')) {
      const type = d.attrs.tag === '520' && d.attrs.ind1 === '3' ? 'abstract' : d.attrs.tag === '546' ? 'langmaterial' : NOTE_TAGS[d.attrs.tag ?? ''];
      const text = kids(d, 'subfield').filter((x) => x.attrs.code !== '6' && x.attrs.code !== '8').map((x) => textOf(x)).join(' ').trim();
      if (!type || !text) continue;
      if (type === 'langmaterial') body.lang_materials.push({ notes: [{ jsonmodel_type: 'note_langmaterial', type, content: [text], publish: true }] });
      else if (type === 'abstract') body.notes.push({ jsonmodel_type: 'note_singlepart', type, content: [text], publish: true });
      else body.notes.push({ jsonmodel_type: 'note_multipart', type, publish: true, subnotes: [{ jsonmodel_type: 'note_text', content: text, publish: true }] });
    }
    body.linked_agents = [];
    for (const d of kids(node, 'datafield')) {
      const role = AGENT_TAGS[d.attrs.tag ?? ''];
      if (!role) continue;
      const heading = clean(sub(d, 'abcdq').join(' '));
      if (!heading) continue;
      const code = sub(d, '4')[0];
      const relator = code && this.s.enums.get('linked_agent_archival_record_relators')?.values.includes(code) ? code : undefined;
      const ref = await this.agent(role[0], heading, { source: SOURCES[d.attrs.ind2 ?? ''] ?? sub(d, '2')[0], authfilenumber: sub(d, '0')[0] });
      if (!body.linked_agents.some((a: Obj) => a.ref === ref && a.role === role[1])) body.linked_agents.push({ ref, role: role[1], ...(relator ? { relator } : {}) });
    }
    body.subjects = [];
    for (const d of kids(node, 'datafield')) {
      const termType = SUBJECT_TAGS[d.attrs.tag ?? ''];
      if (!termType) continue;
      const heading = [sub(d, 'a').join(' '), ...sub(d, 'vxyz')].map(clean).filter(Boolean).join(' -- ');
      if (!heading) continue;
      const ref = await this.subject(termType, heading, { source: d.attrs.ind2 === '7' ? sub(d, '2')[0] : SOURCES[d.attrs.ind2 ?? ''], authfilenumber: sub(d, '0')[0] });
      if (!body.subjects.some((x: Obj) => x.ref === ref)) body.subjects.push({ ref });
    }
    if (this.mode === 'resource') await this.create('resource', body, [where]);
    if (this.mode === 'accession') await this.create('accession', accessionOf(body, (tag) => fields(tag).map((f) => ({ ind1: f.attrs.ind1, text: sub(f, 'abcdefghijklmnopqrstuvwxyz0123456789').join(' ') }))), [where]);
    this.out.progress(++this.resources);
  }

  result(): ImportReport {
    if (!this.resources) throw new ImportFailed(`${this.input.name}: no MARC record in the file`);
    return this.report;
  }
}

function marcImporter(type: string, label: string, mode: MarcMode): Importer {
  return {
    type,
    label,
    async run(s, repoId, actor, input, out) {
      return importFile(s, out, async (writer) => {
        const job = new MarcImport(s, writer, repoId, actor, input, out);
        job.mode = mode;
        await readBlocks(input.path, input.name, job, out.signal);
        return job.result();
      });
    },
  };
}

export const marcxmlImporter = marcImporter('marcxml', 'Import all record types from a MARC XML file', 'resource');
/** ArchivesSpace's marcxml_subjects_and_agents: the same mapping, keeping only the subjects and agents. */
export const marcxmlSubjectsAndAgentsImporter = marcImporter('marcxml_subjects_and_agents', 'Import only subjects and agents from a MARC XML file', 'subjects_and_agents');
/** ArchivesSpace's marcxml_accession (MarcXMLBibAccessionConverter): each record an accession. */
export const marcxmlAccessionImporter = marcImporter('marcxml_accession', 'Import MARC XML records as Accessions', 'accession');
