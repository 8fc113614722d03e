/**
 * EAD3 finding aid of a resource (`…/resource_descriptions/:id.xml?ead3=true`, `export-ead
 * --ead3`), valid against ead3.xsd, streamed as the EAD 2002 one is: the same walker, the
 * same loaded records, the same parts of a description (writer.ts, parts.ts); only the elements
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
import type { ContainerProfile, FileVersion, Instance, LanguageAndScript, TopContainer } from '../../../../generated/types';
import type { Obj } from '../../../json';
import type { Services } from '../../../records/context';
import type { Attributes, XmlWriter } from '../../xml';
import { dateText } from '../common';
import { ead3Paragraphs as paragraphs, ead3Phrase as phrase } from '../mixed-content';
import {
  agencyOf, type Described, type EadOptions, findingAidStatus, notesOf, type Repository, type Resource, type SubLevel, humanise, type NameAttributes, noteContent, prefixId, present, shownDigitalObjects, type Terms,
} from './parts';
import { DID_NOTES, LANGUAGES, NOTE_HEADS } from './tables';
import { EadFamilyWriter, writeFindingAid } from './writer';

export const EAD3_NS = 'http://ead3.archivists.org/schema/';

/** ArchivesSpace's list numerations as EAD3's. */
const NUMERATION: Record<string, string> = {
  arabic: 'decimal', loweralpha: 'lower-latin', upperalpha: 'upper-latin', lowerroman: 'lower-roman', upperroman: 'upper-roman',
};

/** A standard date ArchivesSpace's begin/end values can be (YYYY, YYYY-MM, YYYY-MM-DD). */
const ISO_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

export function writeEad3(s: Services, w: XmlWriter, resource: Obj, repository: Obj, o: EadOptions): Promise<void> {
  return writeFindingAid(s, w, resource as Resource, repository as Repository, o, new Ead3Writer(w, o));
}

class Ead3Writer extends EadFamilyWriter {
  protected readonly resourceDaosInDid = true;
  protected readonly chronDate = 'datesingle';
  protected readonly eventGroup = 'chronitemset';
  protected readonly filingTitle = { localtype: 'filing' };
  protected readonly noteStatement = 'controlnote';

  constructor(w: XmlWriter, o: EadOptions) {
    super(w, o, phrase, paragraphs);
  }

  begin(r: Resource, repo: Repository, address: string[]): void {
    const w = this.w;
    w.open('ead', { xmlns: EAD3_NS, 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', 'xsi:schemaLocation': `${EAD3_NS} https://www.loc.gov/ead/ead3.xsd`, audience: r.publish === false ? 'internal' : undefined });
    w.open('control');
    w.open('recordid', { instanceurl: r.ead_location }).text(String(r.ead_id ?? r.uri)).close();
    this.filedesc(r, repo, address);
    w.empty('maintenancestatus', { value: 'derived' });
    const agency = agencyOf(repo);
    w.open('maintenanceagency', { countrycode: agency.country });
    if (agency.code) w.leaf('agencycode', agency.code);
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
    const status = findingAidStatus(r, this.o);
    if (present(status)) w.open('localcontrol', { localtype: 'findaidstatus' }).leaf('term', String(status)).close();
    w.open('maintenancehistory');
    w.open('maintenanceevent').empty('eventtype', { value: 'derived' }).leaf('eventdatetime', new Date().toISOString().slice(0, 19), { standarddatetime: new Date().toISOString().slice(0, 19) })
      .empty('agenttype', { value: 'machine' }).leaf('agent', 'Archive Records Backend').leaf('eventdescription', 'This finding aid was produced using Archive Records Backend').close();
    for (const rs of (r.revision_statements ?? []).filter((x) => this.o.includeUnpublished || x.publish !== false)) {
      w.open('maintenanceevent', { audience: this.audience(rs) }).empty('eventtype', { value: 'revised' })
        .open('eventdatetime').raw(phrase(String(rs.date ?? ''))).close()
        .empty('agenttype', { value: 'unknown' }).leaf('agent', 'unknown');
      if (present(rs.description)) w.open('eventdescription').raw(phrase(String(rs.description))).close();
      w.close('maintenanceevent');
    }
    w.close('maintenancehistory');
    w.close('control');
  }

  /** EAD3's titleproper takes no num: the identifier follows the title as text. */
  protected titleNumber(identifier: string): void {
    this.w.text(` ${identifier}`);
  }

  protected publicationDate(r: Resource): void {
    if (present(r.finding_aid_date)) this.w.open('date').raw(phrase(String(r.finding_aid_date))).close();
  }

  protected urlPointer(url: string): void {
    this.w.empty('ref', { href: url, linktitle: url });
  }

  /** A name or term element: one part per piece of text. */
  protected name(element: string, a: NameAttributes, terms: Terms): void {
    const w = this.w;
    w.open(element, { relator: a.relator, source: a.source, rules: a.rules, identifier: a.authority });
    for (const [text, localtype] of terms) w.open('part', { localtype }).raw(phrase(text)).close();
    w.close(element);
  }

  protected didCommon(r: Described): void {
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
    for (const note of notesOf(r)) {
      if (!DID_NOTES.has(note.type) || !this.shown(note)) continue;
      const text = noteContent(note, this.o.includeUnpublished);
      const attrs = { id: prefixId(note.persistent_id), label: note.label, audience: this.audience(note) };
      if (note.type === 'langmaterial') w.open('langmaterial', attrs).open('language').raw(phrase(text)).close().close();
      else if (note.type === 'dimensions' || note.type === 'physfacet') w.open('physdesc', { ...attrs, localtype: note.type }).raw(phrase(text)).close();
      else w.open(note.type, attrs).raw(phrase(text)).close();
    }
    const materials = r.lang_materials ?? [];
    const languages = materials.map((m) => m.language_and_script).filter((l): l is LanguageAndScript => !!l?.language);
    const languageNotes = materials.flatMap((m) => m.notes ?? []).filter((n) => this.shown(n));
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

  protected topContainer(inst: Instance, top: TopContainer, profile: ContainerProfile | undefined): Attributes {
    return {
      localtype: present(top.type) ? String(top.type).replace(/\s+/g, '_') : undefined,
      label: humanise(String(inst.instance_type ?? 'mixed_materials')), containerid: top.barcode,
      altrender: profile ? profile.url ?? profile.name : undefined,
    };
  }

  protected subContainer(level: SubLevel): Attributes {
    return { localtype: level.type.replace(/\s+/g, '_'), containerid: level.barcode };
  }

  protected daos(r: Described): void {
    const w = this.w;
    for (const { dobj, versions, description, internal } of shownDigitalObjects(r, this.o)) {
      const dao = (fv: FileVersion | undefined, withNote: boolean) => {
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

  protected legalStatus(note: Obj): void {
    this.openNote('legalstatus', note, NOTE_HEADS.legalstatus);
    this.w.raw(paragraphs(noteContent(note, this.o.includeUnpublished)) || '<p/>');
    this.w.close('legalstatus');
  }

  protected listAttributes(ordered: boolean, numeration: string | undefined, audience: string | undefined): Attributes {
    return { listtype: ordered ? 'ordered' : 'deflist', numeration: numeration ? NUMERATION[numeration] : undefined, audience };
  }

  protected indexReference(): Attributes {
    return {};
  }

  /** EAD3 wants a block in every note and bibliography. */
  protected needsEmptyParagraph(_kind: 'note' | 'bibliography', _note: Obj, blocks: number): boolean {
    return !blocks;
  }

  /** An index needs an entry. */
  protected noIndexEntries(): void {
    this.w.open('indexentry').open('name').open('part').close().close().close();
  }
}
