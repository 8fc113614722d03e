/**
 * EAD3 finding aid of a resource (`…/resource_descriptions/:id.xml?ead3=true`, `export-ead
 * --ead3`), valid against ead3.xsd, streamed as the EAD 2002 one is: the same tree reader, the
 * same loaded records, the same note heads and access-point tables (ead.ts); only the elements
 * differ, as ArchivesSpace's EAD3 serializer (exporters/serializers/ead3.rb) writes them:
 *
 *   eadheader → control: recordid (ead_id, @instanceurl ead_location), filedesc (titlestmt,
 *     editionstmt, publicationstmt, seriesstmt, notestmt/controlnote), maintenancestatus "derived",
 *     maintenanceagency (agencycode from country and org_code, agencyname), languagedeclaration
 *     (finding_aid_language and _script), conventiondeclaration (description rules),
 *     localcontrol findaidstatus, maintenancehistory (this export, then revision statements)
 *   dates → unitdatestructured@unitdatetype with datesingle or daterange (fromdate/todate
 *     @standarddate), and unitdate for the expression
 *   extents → physdescstructured@coverage@physdescstructuredtype with quantity and unittype;
 *     container summary → physdesc@localtype=container_summary
 *   names and terms (origination, controlaccess, repository) → their element with part
 *     (@relator, @source, @rules, @identifier)
 *   containers → container@localtype (@containerid barcode, @parent); digital objects → dao
 *     @daotype@href@linktitle@localtype (daoset when several file versions)
 *   lists → list@listtype; chronologies → chronlist/chronitem with datesingle and event or chronitemset
 */
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { XmlWriter } from '../xml';
import { dateText } from './common';
import {
  ARCHDESC_NOTES, DID_NOTES, EadOptions, humanise, identifierOf, INDEX_ITEM_ELEMENTS, LANGUAGES, namedAgents, noteContent,
  NOTE_HEADS, prefixId, present, repositoryAddress, shownDigitalObjects, subjectPoints, TreeReader,
} from './ead';
import { ead3Paragraphs as paragraphs, ead3Phrase as phrase } from './mixed-content';

export const EAD3_NS = 'http://ead3.archivists.org/schema/';

/** ArchivesSpace's list numerations as EAD3's. */
const NUMERATION: Record<string, string> = {
  arabic: 'decimal', loweralpha: 'lower-latin', upperalpha: 'upper-latin', lowerroman: 'lower-roman', upperroman: 'upper-roman',
};

/** A standard date ArchivesSpace's begin/end values can be (YYYY, YYYY-MM, YYYY-MM-DD). */
const ISO_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

export async function writeEad3(s: Services, w: XmlWriter, resource: Obj, repository: Obj, o: EadOptions): Promise<void> {
  const e = new Ead3Writer(w, o);
  const tree = new TreeReader(s, resource.uri, o);
  await tree.init();
  w.open('ead', { xmlns: EAD3_NS, 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', 'xsi:schemaLocation': `${EAD3_NS} https://www.loc.gov/ead/ead3.xsd`, audience: resource.publish === false ? 'internal' : undefined });
  e.control(resource, repository, await repositoryAddress(s, repository));
  w.open('archdesc', { level: resource.level, otherlevel: resource.other_level });
  w.open('did');
  if (present(repository.name)) w.open('repository').open('corpname').open('part').raw(phrase(String(repository.name))).close().close().close();
  e.unittitle(resource.title);
  e.origination(resource);
  w.leaf('unitid', identifierOf(resource));
  e.didCommon(resource);
  e.containers(resource);
  if (o.includeDaos) e.daos(resource);
  w.close('did');
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

class Ead3Writer {
  private containerCount = 0;
  constructor(private readonly w: XmlWriter, private readonly o: EadOptions) {}

  private shown(x: Obj | undefined): boolean {
    return !!x && (this.o.includeUnpublished || x.publish !== false);
  }

  private audience(x: Obj): string | undefined {
    return x.publish === false ? 'internal' : undefined;
  }

  /** A name or term element: one part per piece of text. */
  private named(element: string, attrs: Record<string, unknown>, parts: Array<[string, string | undefined]>): void {
    const w = this.w;
    w.open(element, attrs as Record<string, string>);
    for (const [text, localtype] of parts) w.open('part', { localtype }).raw(phrase(text)).close();
    w.close(element);
  }

  control(r: Obj, repo: Obj, address: string[]): void {
    const w = this.w;
    w.open('control');
    w.open('recordid', { instanceurl: r.ead_location }).text(String(r.ead_id ?? r.uri)).close();
    w.open('filedesc').open('titlestmt');
    if (present(r.finding_aid_filing_title)) w.open('titleproper', { localtype: 'filing' }).raw(phrase(String(r.finding_aid_filing_title))).close();
    w.open('titleproper').raw(phrase(String(present(r.finding_aid_title) ? r.finding_aid_title : r.title ?? '')));
    // EAD3's titleproper takes no num: the identifier follows the title as text.
    if (identifierOf(r)) w.text(` ${identifierOf(r)}`);
    w.close();
    for (const [field, element] of [['finding_aid_subtitle', 'subtitle'], ['finding_aid_author', 'author'], ['finding_aid_sponsor', 'sponsor']]) {
      if (present(r[field])) w.open(element).raw(phrase(String(r[field]))).close();
    }
    w.close('titlestmt');
    if (present(r.finding_aid_edition_statement)) w.open('editionstmt').raw(paragraphs(String(r.finding_aid_edition_statement))).close();
    w.open('publicationstmt');
    w.open('publisher').raw(phrase(String(repo.name ?? ''))).close();
    if (present(r.finding_aid_date)) w.open('date').raw(phrase(String(r.finding_aid_date))).close();
    if (address.length || present(repo.url)) {
      w.open('address');
      for (const line of address) w.open('addressline').raw(phrase(line)).close();
      if (present(repo.url)) w.open('addressline').text('URL: ').empty('ref', { href: repo.url, linktitle: repo.url }).close();
      w.close('address');
    }
    w.close('publicationstmt');
    if (present(r.finding_aid_series_statement)) w.open('seriesstmt').raw(paragraphs(String(r.finding_aid_series_statement))).close();
    if (present(r.finding_aid_note)) w.open('notestmt').open('controlnote').raw(paragraphs(String(r.finding_aid_note))).close().close();
    w.close('filedesc');
    w.empty('maintenancestatus', { value: 'derived' });
    const country = /^[A-Z]{2}$/.test(String(repo.country ?? '')) ? repo.country : undefined;
    w.open('maintenanceagency', { countrycode: country });
    if (country && present(repo.org_code)) w.leaf('agencycode', `${country}-${String(repo.org_code).replace(/[^A-Za-z0-9:/-]/g, '')}`.slice(0, 14));
    w.open('agencyname').raw(phrase(String(repo.name ?? 'Archive Records Backend'))).close();
    w.close('maintenanceagency');
    if (present(r.finding_aid_language)) {
      const lang = String(r.finding_aid_language);
      const script = present(r.finding_aid_script) ? String(r.finding_aid_script) : 'Latn';
      w.open('languagedeclaration');
      w.leaf('language', LANGUAGES[lang] ?? lang, { langcode: lang });
      w.leaf('script', script, { scriptcode: script });
      if (present(r.finding_aid_language_note)) w.open('descriptivenote').raw(paragraphs(String(r.finding_aid_language_note))).close();
      w.close('languagedeclaration');
    }
    if (present(r.finding_aid_description_rules)) {
      w.open('conventiondeclaration').leaf('citation', humanise(String(r.finding_aid_description_rules))).close();
    }
    const status = this.o.includeUnpublished || r.is_finding_aid_status_published !== false ? r.finding_aid_status : undefined;
    if (present(status)) w.open('localcontrol', { localtype: 'findaidstatus' }).leaf('term', String(status)).close();
    w.open('maintenancehistory');
    w.open('maintenanceevent').empty('eventtype', { value: 'derived' }).leaf('eventdatetime', new Date().toISOString().slice(0, 19), { standarddatetime: new Date().toISOString().slice(0, 19) })
      .empty('agenttype', { value: 'machine' }).leaf('agent', 'Archive Records Backend').leaf('eventdescription', 'This finding aid was produced using Archive Records Backend').close();
    for (const rs of (r.revision_statements ?? []).filter((x: Obj) => this.o.includeUnpublished || x.publish !== false)) {
      w.open('maintenanceevent', { audience: this.audience(rs) }).empty('eventtype', { value: 'revised' })
        .open('eventdatetime').raw(phrase(String(rs.date ?? ''))).close()
        .empty('agenttype', { value: 'unknown' }).leaf('agent', 'unknown');
      if (present(rs.description)) w.open('eventdescription').raw(phrase(String(rs.description))).close();
      w.close('maintenanceevent');
    }
    w.close('maintenancehistory');
    w.close('control');
  }

  unittitle(title: unknown): void {
    if (present(title)) this.w.open('unittitle').raw(phrase(String(title))).close();
  }

  origination(r: Obj): void {
    for (const a of namedAgents(r, this.o, (role) => role === 'creator' || role === 'source')) {
      this.w.open('origination', { label: a.role === 'creator' ? 'Creator' : a.role, audience: a.internal ? 'internal' : undefined });
      this.named(a.element, { relator: a.relator, source: a.source, rules: a.rules, identifier: a.authority }, [[a.name, undefined]]);
      this.w.close('origination');
    }
  }

  didCommon(r: Obj): void {
    const w = this.w;
    if (this.o.includeUnpublished) {
      for (const ex of r.external_ids ?? []) w.leaf('unitid', ex.external_id, { audience: 'internal', localtype: ex.source, identifier: ex.external_id });
    }
    if (r.ark_name?.current) w.open('unitid', { localtype: 'ark' }).open('ref', { href: r.ark_name.current }).text('Archival Resource Key').close().close();
    if (this.o.includeUris) w.leaf('unitid', r.uri, { localtype: 'aspace_uri' });
    for (const ex of r.extents ?? []) {
      if (!this.shown(ex)) continue;
      if (present(ex.number) && present(ex.extent_type)) {
        w.open('physdescstructured', { coverage: ex.portion === 'part' ? 'part' : 'whole', physdescstructuredtype: 'spaceoccupied', audience: this.audience(ex) });
        w.leaf('quantity', String(ex.number)).open('unittype').raw(phrase(humanise(String(ex.extent_type)))).close();
        if (present(ex.physical_details)) w.open('physfacet').raw(phrase(String(ex.physical_details))).close();
        if (present(ex.dimensions)) w.open('dimensions').raw(phrase(String(ex.dimensions))).close();
        w.close('physdescstructured');
      }
      if (present(ex.container_summary)) w.open('physdesc', { localtype: 'container_summary', audience: this.audience(ex) }).raw(phrase(String(ex.container_summary))).close();
    }
    for (const d of r.dates ?? []) {
      if (!this.shown(d)) continue;
      const type = d.date_type === 'bulk' ? 'bulk' : 'inclusive';
      const attrs = { unitdatetype: type, certainty: d.certainty, era: d.era, calendar: d.calendar, datechar: d.label, audience: this.audience(d) };
      if (present(d.expression)) w.open('unitdate', attrs).raw(phrase(String(d.expression))).close();
      if (!present(d.begin)) {
        if (!present(d.expression)) w.open('unitdate', attrs).raw(phrase(dateText(d, '-'))).close();
        continue;
      }
      const std = (v: unknown) => (ISO_DATE.test(String(v)) ? String(v) : undefined);
      w.open('unitdatestructured', attrs);
      if (d.date_type === 'single' || !present(d.end)) w.leaf('datesingle', String(d.begin), { standarddate: std(d.begin) });
      else w.open('daterange').leaf('fromdate', String(d.begin), { standarddate: std(d.begin) }).leaf('todate', String(d.end), { standarddate: std(d.end) }).close();
      w.close('unitdatestructured');
    }
    for (const note of r.notes ?? []) {
      if (!DID_NOTES.has(note.type) || !this.shown(note)) continue;
      const text = noteContent(note, this.o.includeUnpublished);
      const attrs = { id: prefixId(note.persistent_id), label: note.label, audience: this.audience(note) };
      if (note.type === 'langmaterial') w.open('langmaterial', attrs).open('language').raw(phrase(text)).close().close();
      else if (note.type === 'dimensions' || note.type === 'physfacet') w.open('physdesc', { ...attrs, localtype: note.type }).raw(phrase(text)).close();
      else if (note.type === 'abstract' || note.type === 'physdesc') w.open(note.type, attrs).raw(phrase(text)).close();
      else w.open(note.type, attrs).raw(phrase(text)).close();
    }
    const materials = r.lang_materials ?? [];
    const languages = materials.map((m: Obj) => m.language_and_script).filter((l: Obj | undefined) => l?.language);
    const languageNotes = materials.flatMap((m: Obj) => m.notes ?? []).filter((n: Obj) => this.shown(n));
    if (languages.length || languageNotes.length) {
      w.open('langmaterial');
      for (const l of languages) {
        if (l.script) {
          w.open('languageset').leaf('language', LANGUAGES[l.language] ?? l.language, { langcode: l.language }).leaf('script', l.script, { scriptcode: l.script }).close();
        } else w.leaf('language', LANGUAGES[l.language] ?? l.language, { langcode: l.language });
      }
      if (!languages.length) w.open('language').raw(phrase(noteContent(languageNotes[0], this.o.includeUnpublished))).close();
      else if (languageNotes.length) {
        w.open('descriptivenote');
        for (const note of languageNotes) w.raw(paragraphs(noteContent(note, this.o.includeUnpublished)));
        w.close('descriptivenote');
      }
      w.close('langmaterial');
    }
  }

  containers(r: Obj): void {
    for (const inst of r.instances ?? []) {
      const sub = inst.sub_container;
      const top = sub?.top_container?._resolved as Obj | undefined;
      if (!top) continue;
      let last = `aspace_container_${++this.containerCount}`;
      const profile = top.container_profile?._resolved as Obj | undefined;
      this.w.open('container', {
        id: last, localtype: present(top.type) ? String(top.type).replace(/\s+/g, '_') : undefined,
        label: humanise(String(inst.instance_type ?? 'mixed_materials')), containerid: top.barcode,
        altrender: profile ? profile.url ?? profile.name : undefined,
      }).raw(phrase(String(top.indicator ?? ''))).close();
      for (const n of [2, 3]) {
        if (!present(sub[`type_${n}`])) continue;
        const id = `${last}_${n}`;
        this.w.open('container', { id, parent: last, localtype: String(sub[`type_${n}`]).replace(/\s+/g, '_'), containerid: sub[`barcode_${n}`] })
          .raw(phrase(String(sub[`indicator_${n}`] ?? ''))).close();
        last = id;
      }
    }
  }

  daos(r: Obj): void {
    const w = this.w;
    for (const { dobj, versions, description, internal } of shownDigitalObjects(r, this.o)) {
      const dao = (fv: Obj | undefined, withNote: boolean) => {
        w.open('dao', { daotype: 'unknown', href: fv ? fv.file_uri : dobj.digital_object_id, linktitle: dobj.title, localtype: fv?.use_statement, audience: internal(fv) });
        if (withNote && description) w.open('descriptivenote').raw(paragraphs(description)).close();
        w.close('dao');
      };
      if (versions.length <= 1) dao(versions[0], true);
      else {
        w.open('daoset', { label: dobj.title, audience: internal() });
        for (const fv of versions) dao(fv, false);
        if (description) w.open('descriptivenote').raw(paragraphs(description)).close();
        w.close('daoset');
      }
    }
  }

  notesAndAccess(r: Obj): void {
    const w = this.w;
    for (const note of r.notes ?? []) {
      if (!this.shown(note) || note.internal === true) continue;
      if (note.jsonmodel_type === 'note_bibliography') this.bibliography(note);
      else if (note.jsonmodel_type === 'note_index') this.index(note);
      else if (ARCHDESC_NOTES.has(note.type)) {
        if (note.type === 'legalstatus') {
          w.open('legalstatus', { id: prefixId(note.persistent_id), audience: this.audience(note) });
          w.open('head').raw(phrase(String(note.label ?? NOTE_HEADS.legalstatus))).close();
          w.raw(paragraphs(noteContent(note, this.o.includeUnpublished)) || '<p/>');
          w.close('legalstatus');
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
    let blocks = 0;
    for (const text of content) {
      const p = paragraphs(text);
      if (p) (w.raw(p), blocks++);
    }
    for (const sub of note.subnotes ?? []) {
      if (!this.shown(sub)) continue;
      const audience = this.audience(sub);
      if (sub.jsonmodel_type === 'note_text') {
        const p = paragraphs(String(sub.content ?? ''));
        if (p) (w.raw(p), blocks++);
      } else if (sub.jsonmodel_type === 'note_chronology') {
        if (!(sub.items ?? []).length) continue;
        w.open('chronlist', { audience });
        if (present(sub.title)) w.open('head').raw(phrase(String(sub.title))).close();
        for (const item of sub.items) {
          w.open('chronitem').open('datesingle').raw(phrase(String(item.event_date ?? ''))).close();
          const events = (item.events ?? []).filter(present);
          if (events.length <= 1) w.open('event').raw(phrase(String(events[0] ?? ''))).close();
          else {
            w.open('chronitemset');
            for (const ev of events) w.open('event').raw(phrase(String(ev))).close();
            w.close('chronitemset');
          }
          w.close('chronitem');
        }
        w.close('chronlist');
        blocks++;
      } else if (sub.jsonmodel_type === 'note_orderedlist' || sub.jsonmodel_type === 'note_definedlist') {
        const items = sub.items ?? [];
        if (!items.length) continue;
        const ordered = sub.jsonmodel_type === 'note_orderedlist';
        const numeration = ordered && present(sub.enumeration) && sub.enumeration !== 'null' ? String(sub.enumeration) : undefined;
        w.open('list', { listtype: ordered ? 'ordered' : 'deflist', numeration: numeration ? NUMERATION[numeration] : undefined, audience });
        if (present(sub.title)) w.open('head').raw(phrase(String(sub.title))).close();
        for (const item of items) {
          if (ordered) w.open('item').raw(phrase(String(item))).close();
          else w.open('defitem').open('label').raw(phrase(String(item.label ?? ''))).close().open('item').raw(phrase(String(item.value ?? ''))).close().close();
        }
        w.close('list');
        blocks++;
      }
    }
    if (!blocks) w.open('p').close();
    w.close(note.type);
  }

  private bibliography(note: Obj): void {
    const w = this.w;
    w.open('bibliography', { id: prefixId(note.persistent_id), audience: this.audience(note) });
    w.open('head').raw(phrase(String(note.label ?? NOTE_HEADS.bibliography))).close();
    let blocks = 0;
    for (const text of (Array.isArray(note.content) ? note.content : []).map(String)) {
      const p = paragraphs(text);
      if (p) (w.raw(p), blocks++);
    }
    for (const item of note.items ?? []) if (present(item)) (w.open('bibref').raw(phrase(String(item))).close(), blocks++);
    if (!blocks) w.open('p').close();
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
      this.named(INDEX_ITEM_ELEMENTS[item.type], {}, [[String(item.value ?? ''), undefined]]);
      if (present(item.reference_text)) w.open('ref').raw(phrase(String(item.reference_text))).close();
      w.close('indexentry');
    }
    // An index needs an entry.
    if (!entries.length) w.open('indexentry').open('name').open('part').close().close().close();
    w.close('index');
  }

  private controlaccess(r: Obj): void {
    const points: Array<[string, Record<string, unknown>, Array<[string, string | undefined]>]> = [
      ...subjectPoints(r).map((p): [string, Record<string, unknown>, Array<[string, string | undefined]>] => [p.element, { source: p.source, identifier: p.authority }, p.terms]),
      ...namedAgents(r, this.o, (role) => role !== 'creator', 'not-unpublished').map((a): [string, Record<string, unknown>, Array<[string, string | undefined]>] => [a.element, {
        relator: a.relator ?? (a.role === 'source' ? 'fmo' : undefined), source: a.source, rules: a.rules, identifier: a.authority,
      }, [[a.name, undefined], ...a.terms]]),
    ];
    if (!points.length) return;
    this.w.open('controlaccess');
    for (const [element, attrs, parts] of points) this.named(element, attrs, parts);
    this.w.close('controlaccess');
  }

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
