/**
 * EAD 2002 finding aid of a resource (`GET /repositories/:repo_id/resource_descriptions/:id.xml`,
 * OAI `oai_ead`), valid against ead.xsd, written as the tree is walked: components are read a
 * page of siblings at a time in tree order, so a resource of 100,000 components streams in
 * bounded memory. Element choices follow ArchivesSpace's EAD serializer (exporters/serializers/ead.rb).
 *
 * record field → element:
 *   ead_id → eadheader/eadid (@url ead_location, @countrycode and @mainagencycode from the repository)
 *   finding_aid_filing_title → titleproper@type=filing; finding_aid_title (else title) + identifier → titleproper (+ num)
 *   finding_aid_subtitle, _author, _sponsor → subtitle, author, sponsor; _edition_statement → editionstmt/p
 *   repository name, finding_aid_date, repository address (its agent's first contact) → publicationstmt publisher, p/date, address/addressline
 *   finding_aid_series_statement → seriesstmt/p; finding_aid_note → notestmt/note/p
 *   finding_aid_language / _script (or _language_note) → profiledesc/langusage; finding_aid_description_rules → descrules
 *   finding_aid_status → eadheader@findaidstatus; revision_statements → revisiondesc/change (date, item)
 *   level / other_level → archdesc@level, @otherlevel (c@level on components, c@id from ref_id)
 *   repository → did/repository/corpname; title → unittitle; id_0..3 (component_id) → unitid
 *   linked agents (creator, source) → origination@label/persname|corpname|famname|name (@role relator, @source, @rules, @authfilenumber)
 *   extents → physdesc@altrender=portion / extent (number + type; container_summary as carrier), physfacet, dimensions
 *   dates → unitdate (@normal begin/end, @type inclusive|bulk, @certainty, @era, @calendar, @datechar label)
 *   notes: abstract, physloc, materialspec, physdesc, dimensions, physfacet, langmaterial → in did;
 *     the others → their own element with head (label, else the note type's name) and paragraphs, subnotes
 *     as chronlist / list@type=ordered / list@type=deflist; legalstatus inside accessrestrict;
 *     note_bibliography → bibliography/bibref; note_index → index/indexentry
 *   lang_materials → langmaterial/language@langcode@scriptcode
 *   instances (top container, child, grandchild) → container@type@label (+ [barcode]) @altrender (profile), @parent
 *   instances with digital objects (include_daos) → dao (one file version) or daogrp/daoloc (several)
 *   subjects → controlaccess/subject|geogname|genreform|occupation|function|title (@source, @authfilenumber)
 *   linked agents (not creators) → controlaccess/persname|... (@role relator, or fmo for a source)
 *   archival objects → dsc/c (or c01..c12 with numbered_cs), nested in tree order
 */
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';
import { parentKey } from '../../store/positions';
import { XmlWriter } from '../xml';
import { dateText, isPublished } from './common';
import { paragraphs, phrase } from './mixed-content';

export const EAD_NS = 'urn:isbn:1-931666-22-9';
/** What a resource and each component are loaded with. */
export const EAD_RESOLVE = ['subjects', 'linked_agents', 'digital_object', 'top_container', 'top_container::container_profile'];

export interface EadOptions {
  includeUnpublished: boolean;
  includeDaos: boolean;
  includeUris: boolean;
  numberedCs: boolean;
}

export const DID_NOTES = new Set(['abstract', 'dimensions', 'physdesc', 'langmaterial', 'physloc', 'materialspec', 'physfacet']);
export const ARCHDESC_NOTES = new Set([
  'accruals', 'appraisal', 'arrangement', 'bioghist', 'accessrestrict', 'legalstatus', 'userestrict', 'custodhist', 'altformavail',
  'originalsloc', 'fileplan', 'odd', 'acqinfo', 'otherfindaid', 'phystech', 'prefercite', 'processinfo', 'relatedmaterial',
  'scopecontent', 'separatedmaterial',
]);
/** The heads ArchivesSpace gives notes without a label (its English note-type names). */
export const NOTE_HEADS: Record<string, string> = {
  accruals: 'Accruals', appraisal: 'Appraisal', arrangement: 'Arrangement', bioghist: 'Biographical / Historical',
  accessrestrict: 'Conditions Governing Access', legalstatus: 'Legal Status', userestrict: 'Conditions Governing Use',
  custodhist: 'Custodial History', altformavail: 'Existence and Location of Copies', originalsloc: 'Existence and Location of Originals',
  fileplan: 'File Plan', odd: 'General', acqinfo: 'Immediate Source of Acquisition', otherfindaid: 'Other Finding Aids',
  phystech: 'Physical Characteristics and Technical Requirements', prefercite: 'Preferred Citation', processinfo: 'Processing Information',
  relatedmaterial: 'Related Materials', scopecontent: 'Scope and Contents', separatedmaterial: 'Separated Materials',
  bibliography: 'Bibliography', index: 'Index',
};
export const SUBJECT_ELEMENTS: Record<string, string> = {
  function: 'function', genre_form: 'genreform', style_period: 'genreform', geographic: 'geogname', cultural_context: 'geogname',
  occupation: 'occupation', topical: 'subject', uniform_title: 'title',
};
export const AGENT_ELEMENTS: Record<string, string> = {
  agent_person: 'persname', agent_family: 'famname', agent_corporate_entity: 'corpname', agent_software: 'name',
};
export const INDEX_ITEM_ELEMENTS: Record<string, string> = {
  corporate_entity: 'corpname', genre_form: 'genreform', name: 'name', occupation: 'occupation', person: 'persname',
  subject: 'subject', family: 'famname', function: 'function', geographic_name: 'geogname', title: 'title',
};
/** Language names of the ISO 639-2 codes finding aids use most; others show their code. */
export const LANGUAGES: Record<string, string> = {
  eng: 'English', fre: 'French', ger: 'German', spa: 'Spanish', ita: 'Italian', por: 'Portuguese', dut: 'Dutch', lat: 'Latin',
  rus: 'Russian', pol: 'Polish', chi: 'Chinese', jpn: 'Japanese', heb: 'Hebrew', ara: 'Arabic', gre: 'Greek, Modern (1453-)',
  swe: 'Swedish', dan: 'Danish', nor: 'Norwegian', wel: 'Welsh', gle: 'Irish', yid: 'Yiddish', cze: 'Czech', hun: 'Hungarian',
  kor: 'Korean', mul: 'Multiple languages', und: 'Undetermined', zxx: 'No linguistic content',
};
export const SCRIPTS: Record<string, string> = { Latn: 'Latin', Cyrl: 'Cyrillic', Grek: 'Greek', Hebr: 'Hebrew', Arab: 'Arabic', Hani: 'Han (Hanzi, Kanji, Hanja)', Jpan: 'Japanese' };

/** An enumeration value as ArchivesSpace's English labels show most of them ("linear_feet" → "Linear Feet"). */
export const humanise = (v: string) => v.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
export const present = (v: unknown) => v !== undefined && v !== null && v !== '';
export const identifierOf = (r: Obj) => ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => r[k]).filter(present).join('.');
/** IDs are XML IDs: ArchivesSpace's "aspace_" prefix makes any ref_id start with a letter. */
export const prefixId = (id: unknown) => (present(id) && id !== 'null' ? `aspace_${String(id).replace(/[^\w.-]/g, '_')}` : undefined);

export interface Node {
  rid: number;
  record: Obj;
}

/**
 * Walks a resource's tree a page of siblings at a time, skipping suppressed (and unpublished)
 * branches. Which nodes of a page have children is asked once for the whole page, so a leaf costs
 * no query of its own and nothing is counted before the first component goes out.
 */
export class TreeReader {
  private readonly parents = new Set<number | null>([null]);
  constructor(private readonly s: Services, private readonly rootUri: string, private readonly o: EadOptions) {}

  /** Kept for the writers' sake: there is nothing to prepare. */
  async init(): Promise<void> {}

  async *children(parent: number | null, pageSize = 200): AsyncGenerator<Node> {
    if (!this.parents.has(parent)) return;
    this.parents.delete(parent);
    let after = -Infinity;
    for (;;) {
      // Along the (parent_key, position) index: a page costs its own rows, not a scan and sort of
      // every node of the tree (quadratic for a resource with 100,000 components).
      const q = this.s.db.knex('records').where({ parent_key: parentKey(this.rootUri, parent), hidden: false });
      if (after !== -Infinity) q.where('position', '>', after);
      const rows: Array<{ rid: number; json: string; suppressed: unknown; position: number }> =
        await q.orderBy('position').limit(pageSize).select('rid', 'json', 'suppressed', 'position');
      if (!rows.length) return;
      after = Number(rows[rows.length - 1].position);
      const nodes = rows
        .filter((r) => !Number(r.suppressed))
        .map((r) => ({ rid: Number(r.rid), record: JSON.parse(r.json) as Obj }))
        .filter((n) => this.o.includeUnpublished || n.record.publish !== false);
      if (nodes.length) {
        const withChildren: Array<{ parent_rid: number }> = await this.s.db.knex('records')
          .whereIn('parent_rid', nodes.map((n) => n.rid)).distinct('parent_rid');
        for (const r of withChildren) this.parents.add(Number(r.parent_rid));
      }
      await resolveLinks(nodes.map((n) => n.record), EAD_RESOLVE, uriLoader(this.s));
      yield* nodes;
      if (rows.length < pageSize) return;
    }
  }
}

/** Writes the EAD 2002 document of a resource loaded with EAD_RESOLVE (and `repository` resolved). */
export async function writeEad(s: Services, w: XmlWriter, resource: Obj, repository: Obj, o: EadOptions): Promise<void> {
  const e = new EadWriter(w, o);
  const tree = new TreeReader(s, resource.uri, o);
  await tree.init();
  w.open('ead', {
    xmlns: EAD_NS, 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', 'xmlns:xlink': 'http://www.w3.org/1999/xlink',
    'xsi:schemaLocation': `${EAD_NS} https://www.loc.gov/ead/ead.xsd`, audience: resource.publish === false ? 'internal' : undefined,
  });
  e.header(resource, repository, await repositoryAddress(s, repository));
  w.open('archdesc', { level: resource.level, otherlevel: resource.other_level });
  w.open('did');
  if (present(repository.name)) w.open('repository').open('corpname').raw(phrase(String(repository.name))).close().close();
  e.unittitle(resource.title);
  e.origination(resource);
  w.leaf('unitid', identifierOf(resource));
  e.didCommon(resource);
  e.containers(resource);
  w.close('did');
  if (o.includeDaos) e.daos(resource);
  e.notesAndAccess(resource);
  w.open('dsc');
  // The description goes out before the tree is read: a publishing pipeline sees the first byte at once.
  await w.flush(true);
  const walk = async (parent: number | null, depth: number): Promise<void> => {
    for await (const node of tree.children(parent)) {
      e.openComponent(node.record, depth);
      await walk(node.rid, depth + 1);
      w.close();
      await w.flush();
    }
  };
  await walk(null, 1);
  w.close('dsc');
  w.close('archdesc');
  w.close('ead');
}

/** The repository's address lines (its agent representation's first contact), as ArchivesSpace's. */
export async function repositoryAddress(s: Services, repository: Obj): Promise<string[]> {
  const ref = repository.agent_representation?.ref;
  if (!ref) return [];
  const row = await s.db.knex('records').where({ uri: ref }).first('json');
  const contact = row ? JSON.parse(row.json).agent_contacts?.[0] : undefined;
  if (!contact) return [];
  const lines = [contact.address_1, contact.address_2, contact.address_3].filter(present).map(String);
  const place = [[contact.city, contact.region].filter(present).join(', '), contact.post_code].filter(present).join(' ').trim();
  if (place) lines.push(place);
  for (const t of contact.telephones ?? []) {
    if (!present(t.number)) continue;
    lines.push(`${t.number_type ? `${humanise(t.number_type)} Number` : 'Telephone'}: ${t.number}${t.ext ? ` (ext: ${t.ext})` : ''}`);
  }
  if (present(contact.email)) lines.push(String(contact.email));
  return lines;
}

/** A linked agent as the finding aids name it: origination (creators and sources) or an access point. */
export interface NamedAgent {
  element: string;
  role: string;
  relator?: string;
  name: string;
  source?: string;
  rules?: string;
  authority?: string;
  internal: boolean;
  terms: Array<[string, string | undefined]>;
}

/**
 * The shown linked agents of a record with the roles asked for: unpublished ones only when asked;
 * origination wants agents marked published, access points leave out only those marked unpublished
 * (as ArchivesSpace's serializers).
 */
export function namedAgents(r: Obj, o: EadOptions, keep: (role: string) => boolean, only: 'published' | 'not-unpublished' = 'published'): NamedAgent[] {
  const out: NamedAgent[] = [];
  for (const link of r.linked_agents ?? []) {
    const agent = link._resolved as Obj | undefined;
    const hidden = only === 'published' ? agent?.publish !== true : agent?.publish === false;
    if (!agent || !keep(String(link.role)) || (!o.includeUnpublished && hidden)) continue;
    const name = agent.display_name ?? {};
    out.push({
      element: AGENT_ELEMENTS[agent.jsonmodel_type] ?? 'name', role: String(link.role), relator: link.relator,
      name: String(name.sort_name ?? agent.title ?? ''), source: name.source, rules: name.rules, authority: name.authority_id,
      internal: agent.publish !== true,
      terms: (link.terms ?? []).filter((t: Obj) => present(t.term)).map((t: Obj) => [String(t.term), t.term_type] as [string, string | undefined]),
    });
  }
  return out;
}

/** A subject as an access point: its element by first term type, and its terms. */
export function subjectPoints(r: Obj): Array<{ element: string; source?: string; authority?: string; terms: Array<[string, string | undefined]> }> {
  const out = [];
  for (const link of r.subjects ?? []) {
    const subject = link._resolved as Obj | undefined;
    const element = SUBJECT_ELEMENTS[subject?.terms?.[0]?.term_type];
    if (!subject || !element) continue;
    out.push({ element, source: subject.source, authority: subject.authority_id, terms: (subject.terms ?? []).map((t: Obj) => [String(t.term), t.term_type] as [string, string | undefined]) });
  }
  return out;
}

/** The digital objects of a record's instances as the finding aids show them (include_daos). */
export function shownDigitalObjects(r: Obj, o: EadOptions) {
  const out = [];
  for (const inst of r.instances ?? []) {
    const dobj = inst.digital_object?._resolved as Obj | undefined;
    if (!dobj || dobj.suppressed === true || !(o.includeUnpublished || dobj.publish !== false)) continue;
    const versions: Obj[] = (dobj.file_versions ?? []).filter((fv: Obj) => fv.publish === true || o.includeUnpublished);
    const date = dobj.dates?.[0] ?? {};
    const when = date.expression ?? (date.begin ? `${date.begin}${date.end && date.end !== date.begin ? `-${date.end}` : ''}` : '');
    out.push({
      inst, dobj, versions, description: `${dobj.title ?? ''}${when ? `: ${when}` : ''}`,
      /** audience="internal" for an unpublished digital object or file version. */
      internal: (fv?: Obj) => (!isPublished(dobj) || (fv && fv.publish !== true) ? 'internal' : undefined),
    });
  }
  return out;
}

class EadWriter {
  /** Container ids, unique in the document (a container's children name it in @parent). */
  private containerCount = 0;
  constructor(private readonly w: XmlWriter, private readonly o: EadOptions) {}

  private shown(x: Obj | undefined): boolean {
    return !!x && (this.o.includeUnpublished || x.publish !== false);
  }

  private audience(x: Obj): string | undefined {
    return x.publish === false ? 'internal' : undefined;
  }

  header(r: Obj, repo: Obj, address: string[]): void {
    const w = this.w;
    const status = this.o.includeUnpublished || r.is_finding_aid_status_published !== false ? r.finding_aid_status : undefined;
    w.open('eadheader', {
      findaidstatus: status, repositoryencoding: 'iso15511', countryencoding: 'iso3166-1', dateencoding: 'iso8601', langencoding: 'iso639-2b',
    });
    const country = /^[A-Z]{2}$/.test(String(repo.country ?? '')) ? repo.country : undefined;
    const agency = country && present(repo.org_code) ? `${country}-${String(repo.org_code).replace(/[^A-Za-z0-9:/-]/g, '')}`.slice(0, 14) : undefined;
    w.open('eadid', { countrycode: country, mainagencycode: agency, url: r.ead_location }).text(String(r.ead_id ?? '')).close();
    w.open('filedesc').open('titlestmt');
    if (present(r.finding_aid_filing_title)) w.open('titleproper', { type: 'filing' }).raw(phrase(String(r.finding_aid_filing_title))).close();
    w.open('titleproper').raw(phrase(String(present(r.finding_aid_title) ? r.finding_aid_title : r.title ?? '')));
    if (identifierOf(r)) w.text(' ').leaf('num', identifierOf(r));
    w.close();
    for (const [field, element] of [['finding_aid_subtitle', 'subtitle'], ['finding_aid_author', 'author'], ['finding_aid_sponsor', 'sponsor']]) {
      if (present(r[field])) w.open(element).raw(phrase(String(r[field]))).close();
    }
    w.close('titlestmt');
    if (present(r.finding_aid_edition_statement)) w.open('editionstmt').raw(paragraphs(String(r.finding_aid_edition_statement))).close();
    w.open('publicationstmt');
    w.open('publisher').raw(phrase(String(repo.name ?? ''))).close();
    if (present(repo.image_url)) {
      w.open('p', { id: 'logostmt' }).empty('extref', { 'xlink:href': repo.image_url, 'xlink:actuate': 'onLoad', 'xlink:show': 'embed', 'xlink:type': 'simple' }).close();
    }
    if (present(r.finding_aid_date)) w.open('p').open('date').raw(phrase(String(r.finding_aid_date))).close().close();
    if (address.length || present(repo.url)) {
      w.open('address');
      for (const line of address) w.open('addressline').raw(phrase(line)).close();
      if (present(repo.url)) {
        w.open('addressline').text('URL: ').empty('extptr', { 'xlink:href': repo.url, 'xlink:title': repo.url, 'xlink:type': 'simple', 'xlink:show': 'new' }).close();
      }
      w.close('address');
    }
    w.close('publicationstmt');
    if (present(r.finding_aid_series_statement)) w.open('seriesstmt').raw(paragraphs(String(r.finding_aid_series_statement))).close();
    if (present(r.finding_aid_note)) w.open('notestmt').open('note').raw(paragraphs(String(r.finding_aid_note))).close().close();
    w.close('filedesc');
    w.open('profiledesc');
    w.open('creation').text('This finding aid was produced using Archive Records Backend on ').leaf('date', new Date().toISOString().slice(0, 10)).text('.').close();
    if (present(r.finding_aid_language_note)) w.open('langusage').raw(phrase(String(r.finding_aid_language_note))).close();
    else if (present(r.finding_aid_language)) {
      const lang = String(r.finding_aid_language);
      const script = present(r.finding_aid_script) ? String(r.finding_aid_script) : undefined;
      w.open('langusage').text('Finding aid written in ')
        .leaf('language', `${LANGUAGES[lang] ?? lang}${script ? `, ${SCRIPTS[script] ?? script} script` : ''}`, { langcode: lang, scriptcode: script })
        .text('.').close();
    }
    if (present(r.finding_aid_description_rules)) w.leaf('descrules', humanise(String(r.finding_aid_description_rules)));
    w.close('profiledesc');
    const revisions = (r.revision_statements ?? []).filter((rs: Obj) => this.o.includeUnpublished || rs.publish === true || rs.publish === undefined);
    if (revisions.length) {
      w.open('revisiondesc');
      for (const rs of revisions) {
        w.open('change', { audience: rs.publish === false ? 'internal' : undefined });
        w.open('date').raw(phrase(String(rs.date ?? ''))).close();
        w.open('item').raw(phrase(String(rs.description ?? ''))).close();
        w.close('change');
      }
      w.close('revisiondesc');
    }
    w.close('eadheader');
  }

  unittitle(title: unknown): void {
    if (present(title)) this.w.open('unittitle').raw(phrase(String(title))).close();
  }

  /** Creators and sources: origination with the agent's display name. */
  origination(r: Obj): void {
    for (const a of namedAgents(r, this.o, (role) => role === 'creator' || role === 'source')) {
      this.w.open('origination', { label: a.role === 'creator' ? 'Creator' : a.role, audience: a.internal ? 'internal' : undefined });
      this.w.open(a.element, { role: a.relator, source: a.source, rules: a.rules, authfilenumber: a.authority }).raw(phrase(a.name)).close();
      this.w.close('origination');
    }
  }

  /** What resources and components share inside did: identifiers, extents, dates, did notes, languages. */
  didCommon(r: Obj): void {
    const w = this.w;
    if (this.o.includeUnpublished) {
      for (const ex of r.external_ids ?? []) w.leaf('unitid', ex.external_id, { audience: 'internal', type: ex.source, identifier: ex.external_id });
    }
    if (r.ark_name?.current) {
      w.open('unitid', { type: 'ark' }).open('extref', { 'xlink:href': r.ark_name.current, 'xlink:actuate': 'onLoad', 'xlink:show': 'new' }).text('Archival Resource Key').close().close();
    }
    if (this.o.includeUris) w.leaf('unitid', r.uri, { type: 'aspace_uri' });
    for (const ex of r.extents ?? []) {
      if (!this.shown(ex)) continue;
      w.open('physdesc', { altrender: ex.portion, audience: this.audience(ex) });
      if (present(ex.number) && present(ex.extent_type)) w.open('extent', { altrender: 'materialtype spaceoccupied' }).raw(phrase(`${ex.number} ${humanise(String(ex.extent_type))}`)).close();
      if (present(ex.container_summary)) w.open('extent', { altrender: 'carrier' }).raw(phrase(String(ex.container_summary))).close();
      if (present(ex.physical_details)) w.open('physfacet').raw(phrase(String(ex.physical_details))).close();
      if (present(ex.dimensions)) w.open('dimensions').raw(phrase(String(ex.dimensions))).close();
      w.close('physdesc');
    }
    for (const d of r.dates ?? []) {
      if (!this.shown(d)) continue;
      const normal = present(d.begin) ? `${d.begin}/${d.date_type === 'single' || !present(d.end) ? d.begin : d.end}` : undefined;
      w.open('unitdate', {
        type: d.date_type === 'inclusive' ? 'inclusive' : d.date_type === 'bulk' ? 'bulk' : undefined,
        certainty: d.certainty, normal: normal && /^\d{4}(-\d{2}(-\d{2})?)?\/\d{4}(-\d{2}(-\d{2})?)?$/.test(normal) ? normal : undefined,
        era: d.era, calendar: d.calendar, datechar: d.label, audience: this.audience(d),
      }).raw(phrase(dateText(d, '-'))).close();
    }
    for (const note of r.notes ?? []) {
      if (!DID_NOTES.has(note.type) || !this.shown(note)) continue;
      const attrs = { id: prefixId(note.persistent_id), label: note.label };
      const text = noteContent(note, this.o.includeUnpublished);
      if (note.type === 'dimensions' || note.type === 'physfacet') {
        w.open('physdesc', { audience: this.audience(note) }).open(note.type, attrs).raw(phrase(text)).close().close();
      } else if (note.type === 'langmaterial') {
        w.open('langmaterial', { id: attrs.id, label: attrs.label, audience: this.audience(note) }).raw(phrase(text)).close();
      } else {
        w.open(note.type, { ...attrs, audience: this.audience(note) }).raw(phrase(text)).close();
      }
    }
    const materials = r.lang_materials ?? [];
    const languageNotes = materials.flatMap((m: Obj) => m.notes ?? []).filter((n: Obj) => this.shown(n));
    for (const note of languageNotes) {
      w.open('langmaterial', { id: prefixId(note.persistent_id), audience: this.audience(note) }).raw(phrase(noteContent(note, this.o.includeUnpublished))).close();
    }
    const languages = materials.map((m: Obj) => m.language_and_script).filter((l: Obj | undefined) => l?.language);
    if (!languageNotes.length && languages.length) {
      w.open('langmaterial');
      for (const l of languages) w.leaf('language', LANGUAGES[l.language] ?? l.language, { langcode: l.language, scriptcode: l.script });
      w.close('langmaterial');
    }
  }

  /** Top container, child and grandchild of each instance, chained by @parent. */
  containers(r: Obj): void {
    for (const inst of r.instances ?? []) {
      const sub = inst.sub_container;
      const top = sub?.top_container?._resolved as Obj | undefined;
      if (!top) continue;
      let last = `aspace_container_${++this.containerCount}`;
      const profile = top.container_profile?._resolved as Obj | undefined;
      this.w.open('container', {
        id: last, type: present(top.type) ? String(top.type).replace(/\s+/g, '_') : undefined,
        label: `${humanise(String(inst.instance_type ?? 'mixed_materials'))}${present(top.barcode) ? ` [${top.barcode}]` : ''}`,
        altrender: profile ? profile.url ?? profile.name : undefined,
      }).raw(phrase(String(top.indicator ?? ''))).close();
      for (const n of [2, 3]) {
        if (!present(sub[`type_${n}`])) continue;
        const id = `${last}_${n}`;
        this.w.open('container', { id, parent: last, type: String(sub[`type_${n}`]).replace(/\s+/g, '_') }).raw(phrase(String(sub[`indicator_${n}`] ?? ''))).close();
        last = id;
      }
    }
  }

  /** Digital objects of the instances: dao (no or one file version shown) or daogrp with daoloc. */
  daos(r: Obj): void {
    const w = this.w;
    for (const { inst, dobj, versions, description, internal } of shownDigitalObjects(r, this.o)) {
      const desc = () => { if (description) w.open('daodesc').raw(paragraphs(description)).close(); };
      if (versions.length <= 1) {
        const fv = versions[0] as Obj | undefined;
        w.open('dao', {
          'xlink:type': 'simple', 'xlink:href': fv ? fv.file_uri : dobj.digital_object_id, 'xlink:title': dobj.title,
          'xlink:actuate': fv?.xlink_actuate_attribute ?? 'onRequest', 'xlink:show': fv?.xlink_show_attribute ?? 'new',
          'xlink:role': fv?.use_statement ? (inst.is_representative ? `${fv.use_statement} representative` : fv.use_statement) : undefined,
          audience: internal(fv),
        });
        desc();
        w.close('dao');
      } else {
        w.open('daogrp', { 'xlink:type': 'extended', 'xlink:title': dobj.title, 'xlink:role': inst.is_representative ? 'representative' : undefined, audience: internal() });
        desc();
        for (const fv of versions) {
          w.empty('daoloc', { 'xlink:type': 'locator', 'xlink:href': fv.file_uri, 'xlink:role': fv.use_statement, 'xlink:title': fv.caption, audience: internal(fv) });
        }
        w.close('daogrp');
      }
    }
  }

  /** The notes outside did, bibliographies, indexes and controlled access points. */
  notesAndAccess(r: Obj): void {
    const w = this.w;
    for (const note of r.notes ?? []) {
      if (!this.shown(note) || note.internal === true) continue;
      if (note.jsonmodel_type === 'note_bibliography') this.bibliography(note);
      else if (note.jsonmodel_type === 'note_index') this.index(note);
      else if (ARCHDESC_NOTES.has(note.type)) {
        if (note.type === 'legalstatus') {
          w.open('accessrestrict', { audience: this.audience(note) });
          w.open('legalstatus', { id: prefixId(note.persistent_id), audience: this.audience(note) }).raw(phrase(noteContent(note, this.o.includeUnpublished))).close();
          w.close('accessrestrict');
        } else this.blockNote(note);
      }
    }
    this.controlaccess(r);
  }

  private blockNote(note: Obj): void {
    const w = this.w;
    w.open(note.type, { id: prefixId(note.persistent_id), audience: this.audience(note) });
    w.open('head').raw(phrase(String(note.label ?? NOTE_HEADS[note.type] ?? note.type))).close();
    const content = (Array.isArray(note.content) ? note.content : present(note.content) ? [note.content] : []).map(String);
    for (const text of content) w.raw(paragraphs(text));
    for (const sub of note.subnotes ?? []) {
      if (!this.shown(sub)) continue;
      const audience = this.audience(sub);
      if (sub.jsonmodel_type === 'note_text') w.raw(paragraphs(String(sub.content ?? '')));
      else if (sub.jsonmodel_type === 'note_chronology') {
        if (!(sub.items ?? []).length) continue;
        w.open('chronlist', { audience });
        if (present(sub.title)) w.open('head').raw(phrase(String(sub.title))).close();
        for (const item of sub.items) {
          w.open('chronitem').open('date').raw(phrase(String(item.event_date ?? ''))).close();
          const events = (item.events ?? []).filter(present);
          if (events.length === 1) w.open('event').raw(phrase(String(events[0]))).close();
          else if (events.length > 1) {
            w.open('eventgrp');
            for (const ev of events) w.open('event').raw(phrase(String(ev))).close();
            w.close('eventgrp');
          } else w.open('event').close();
          w.close('chronitem');
        }
        w.close('chronlist');
      } else if (sub.jsonmodel_type === 'note_orderedlist' || sub.jsonmodel_type === 'note_definedlist') {
        const items = sub.items ?? [];
        if (!items.length) continue;
        const ordered = sub.jsonmodel_type === 'note_orderedlist';
        w.open('list', { type: ordered ? 'ordered' : 'deflist', numeration: ordered && present(sub.enumeration) && sub.enumeration !== 'null' ? sub.enumeration : undefined, audience });
        if (present(sub.title)) w.open('head').raw(phrase(String(sub.title))).close();
        for (const item of items) {
          if (ordered) w.open('item').raw(phrase(String(item))).close();
          else {
            w.open('defitem').open('label').raw(phrase(String(item.label ?? ''))).close();
            w.open('item').raw(phrase(String(item.value ?? ''))).close().close();
          }
        }
        w.close('list');
      }
    }
    // A note with nothing in it still needs a block after its head.
    if (!content.length && !(note.subnotes ?? []).some((sub: Obj) => this.shown(sub))) w.open('p').close();
    w.close(note.type);
  }

  private bibliography(note: Obj): void {
    const w = this.w;
    w.open('bibliography', { id: prefixId(note.persistent_id), audience: this.audience(note) });
    w.open('head').raw(phrase(String(note.label ?? NOTE_HEADS.bibliography))).close();
    for (const text of (Array.isArray(note.content) ? note.content : []).map(String)) w.raw(paragraphs(text));
    for (const item of note.items ?? []) if (present(item)) w.open('bibref').raw(phrase(String(item))).close();
    w.close('bibliography');
  }

  private index(note: Obj): void {
    const w = this.w;
    w.open('index', { id: prefixId(note.persistent_id), audience: this.audience(note) });
    w.open('head').raw(phrase(String(note.label ?? NOTE_HEADS.index))).close();
    for (const text of (Array.isArray(note.content) ? note.content : []).map(String)) w.raw(paragraphs(text));
    const entries = (note.items ?? []).filter((item: Obj) => INDEX_ITEM_ELEMENTS[item.type]);
    for (const item of entries) {
      w.open('indexentry');
      w.open(INDEX_ITEM_ELEMENTS[item.type]).raw(phrase(String(item.value ?? ''))).close();
      if (present(item.reference_text)) w.open('ref', { target: prefixId(item.reference) }).raw(phrase(String(item.reference_text))).close();
      w.close('indexentry');
    }
    w.close('index');
  }

  private controlaccess(r: Obj): void {
    const points: Array<[string, Record<string, unknown>, string]> = [
      ...subjectPoints(r).map((p): [string, Record<string, unknown>, string] => [p.element, { source: p.source, authfilenumber: p.authority }, p.terms.map((t) => t[0]).join(' -- ')]),
      ...namedAgents(r, this.o, (role) => role !== 'creator', 'not-unpublished').map((a): [string, Record<string, unknown>, string] => [a.element, {
        role: a.relator ?? (a.role === 'source' ? 'fmo' : undefined), source: a.source, rules: a.rules, authfilenumber: a.authority,
      }, [a.name, ...a.terms.map((t) => t[0])].join(' -- ')]),
    ];
    if (!points.length) return;
    this.w.open('controlaccess');
    for (const [element, attrs, text] of points) this.w.open(element, attrs as Record<string, string>).raw(phrase(text)).close();
    this.w.close('controlaccess');
  }

  /** Opens a component and writes all of it but its children (the caller closes it). */
  openComponent(c: Obj, depth: number): void {
    const w = this.w;
    const tag = this.o.numberedCs ? `c${String(Math.min(depth, 12)).padStart(2, '0')}` : 'c';
    w.open(tag, { level: c.level, otherlevel: c.other_level, id: prefixId(c.ref_id), audience: this.audience(c) });
    w.open('did');
    this.unittitle(c.title);
    if (present(c.component_id)) w.leaf('unitid', c.component_id);
    this.origination(c);
    this.didCommon(c);
    this.containers(c);
    if (this.o.includeDaos) this.daos(c);
    w.close('did');
    this.notesAndAccess(c);
  }
}

/** A note's text: its content and its published text subnotes (did notes and other one-part notes). */
export function noteContent(note: Obj, includeUnpublished: boolean): string {
  const parts = (Array.isArray(note.content) ? note.content : present(note.content) ? [note.content] : []).map(String);
  for (const sub of note.subnotes ?? []) {
    if (sub.jsonmodel_type === 'note_text' && (includeUnpublished || sub.publish !== false) && present(sub.content)) parts.push(String(sub.content));
  }
  return parts.join(' ');
}
