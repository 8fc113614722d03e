/**
 * What EAD 2002 and EAD3 documents share: the document's frame around the component walk, and
 * the order of every part of a description (did, containers, notes, lists, chronologies, indexes,
 * access points). A writer of one version says only what it writes for each part.
 */
import type { ContainerProfile, Instance, TopContainer } from '../../../../generated/types';
import type { Obj } from '../../../json';
import type { Services } from '../../../records/context';
import type { Attributes, XmlWriter } from '../../xml';
import {
  accessPoints, type ArchivalObject, containedInstances, type Described, type EadOptions, identifierOf, type NameAttributes,
  noteContents, notesOf, originators, prefixId, present, type Repository, repositoryAddress, type Resource, shownIn, type SubLevel,
  subLevels, type Terms,
} from './parts';
import { ARCHDESC_NOTES, INDEX_ITEM_ELEMENTS, NOTE_HEADS } from './tables';
import { findingAidComponents, walkComponents } from './walker';

export abstract class EadFamilyWriter {
  /** Container ids, unique in the document (a container's children name it in @parent). */
  private containerCount = 0;
  protected readonly shown: (x: Obj | undefined) => boolean;

  constructor(
    protected readonly w: XmlWriter, protected readonly o: EadOptions,
    /** Mixed content of the version: phrase-level, and made of paragraphs. */
    protected readonly phrase: (text: string) => string, protected readonly paragraphs: (text: string) => string,
  ) {
    this.shown = shownIn(o);
  }

  protected audience(x: Obj): string | undefined {
    return x.publish === false ? 'internal' : undefined;
  }

  /** Opens the document: its root element and its header (EAD 2002) or control (EAD3). */
  abstract begin(r: Resource, repo: Repository, address: string[]): void;
  /** A name or term (origination, access point, index entry, repository): its element with its texts. */
  protected abstract name(element: string, attrs: NameAttributes, terms: Terms): void;
  /** Identifiers, extents, dates, did notes and languages, inside did. */
  protected abstract didCommon(r: Described): void;
  /** The attributes of a top container, and of a child or grandchild level, besides id and parent. */
  protected abstract topContainer(inst: Instance, top: TopContainer, profile: ContainerProfile | undefined): Attributes;
  protected abstract subContainer(level: SubLevel): Attributes;
  /** The digital objects of the instances. */
  protected abstract daos(r: Described): void;
  /** Whether a resource's digital objects stand inside its did (else right after it). */
  protected abstract readonly resourceDaosInDid: boolean;
  protected abstract legalStatus(note: Obj): void;
  /** The date element of a chronology item, and the element grouping several events. */
  protected abstract readonly chronDate: string;
  protected abstract readonly eventGroup: string;
  protected abstract listAttributes(ordered: boolean, numeration: string | undefined, audience: string | undefined): Attributes;
  /** An index entry's reference attributes. */
  protected abstract indexReference(item: Obj): Attributes;
  /** Whether a note block (or a bibliography) that wrote `blocks` paragraphs, lists and chronologies needs an empty paragraph. */
  protected abstract needsEmptyParagraph(kind: 'note' | 'bibliography', note: Obj, blocks: number): boolean;
  /** Writes what an index without entries needs, if anything. */
  protected abstract noIndexEntries(): void;
  /** The filing title's attributes; the identifier after the title proper; the publication's date (and logo); the repository's URL. */
  protected abstract readonly filingTitle: Attributes;
  protected abstract titleNumber(identifier: string): void;
  protected abstract publicationDate(r: Resource, repo: Repository): void;
  protected abstract urlPointer(url: string): void;
  /** The element of notestmt holding the finding aid's note. */
  protected abstract readonly noteStatement: string;

  /** filedesc: the titles, edition, publication (publisher, date, address), series and note of the finding aid. */
  protected filedesc(r: Resource, repo: Repository, address: string[]): void {
    const w = this.w;
    w.open('filedesc').open('titlestmt');
    if (present(r.finding_aid_filing_title)) w.open('titleproper', this.filingTitle).raw(this.phrase(String(r.finding_aid_filing_title))).close();
    w.open('titleproper').raw(this.phrase(String(present(r.finding_aid_title) ? r.finding_aid_title : r.title ?? '')));
    if (identifierOf(r)) this.titleNumber(identifierOf(r));
    w.close();
    for (const [text, element] of [[r.finding_aid_subtitle, 'subtitle'], [r.finding_aid_author, 'author'], [r.finding_aid_sponsor, 'sponsor']]) {
      if (present(text)) w.open(element!).raw(this.phrase(String(text))).close();
    }
    w.close('titlestmt');
    if (present(r.finding_aid_edition_statement)) w.open('editionstmt').raw(this.paragraphs(String(r.finding_aid_edition_statement))).close();
    w.open('publicationstmt');
    w.open('publisher').raw(this.phrase(String(repo.name ?? ''))).close();
    this.publicationDate(r, repo);
    if (address.length || present(repo.url)) {
      w.open('address');
      for (const line of address) w.open('addressline').raw(this.phrase(line)).close();
      if (present(repo.url)) {
        w.open('addressline').text('URL: ');
        this.urlPointer(String(repo.url));
        w.close();
      }
      w.close('address');
    }
    w.close('publicationstmt');
    if (present(r.finding_aid_series_statement)) w.open('seriesstmt').raw(this.paragraphs(String(r.finding_aid_series_statement))).close();
    if (present(r.finding_aid_note)) w.open('notestmt').open(this.noteStatement).raw(this.paragraphs(String(r.finding_aid_note))).close().close();
    w.close('filedesc');
  }

  /** The resource's description: archdesc (left open for the components) with did, notes and access points. */
  description(r: Resource, repo: Repository): void {
    const w = this.w;
    w.open('archdesc', { level: r.level, otherlevel: r.other_level });
    w.open('did');
    if (present(repo.name)) {
      w.open('repository');
      this.name('corpname', {}, [[String(repo.name), undefined]]);
      w.close('repository');
    }
    this.unittitle(r.title);
    this.origination(r);
    w.leaf('unitid', identifierOf(r));
    this.didCommon(r);
    this.containers(r);
    if (this.o.includeDaos && this.resourceDaosInDid) this.daos(r);
    w.close('did');
    if (this.o.includeDaos && !this.resourceDaosInDid) this.daos(r);
    this.notesAndAccess(r);
  }

  /** Opens a component and writes all of it but its children (the caller closes it). */
  openComponent(c: ArchivalObject, depth: number): void {
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

  protected unittitle(title: unknown): void {
    if (present(title)) this.w.open('unittitle').raw(this.phrase(String(title))).close();
  }

  /** Creators and sources: origination with the agent's display name. */
  protected origination(r: Described): void {
    for (const a of originators(r, this.o)) {
      this.w.open('origination', { label: a.role === 'creator' ? 'Creator' : a.role, audience: a.internal ? 'internal' : undefined });
      this.name(a.element, { relator: a.relator, source: a.source, rules: a.rules, authority: a.authority }, [[a.name, undefined]]);
      this.w.close('origination');
    }
  }

  /** Top container, child and grandchild of each instance, chained by @parent. */
  protected containers(r: Described): void {
    for (const { inst, sub, top, profile } of containedInstances(r)) {
      let last = `aspace_container_${++this.containerCount}`;
      this.w.open('container', { id: last, ...this.topContainer(inst, top, profile) }).raw(this.phrase(String(top.indicator ?? ''))).close();
      for (const level of subLevels(sub)) {
        const id = `${last}_${level.n}`;
        this.w.open('container', { id, parent: last, ...this.subContainer(level) }).raw(this.phrase(String(level.indicator ?? ''))).close();
        last = id;
      }
    }
  }

  /** The notes outside did, bibliographies, indexes and controlled access points. */
  protected notesAndAccess(r: Described): void {
    for (const note of notesOf(r)) {
      if (!this.shown(note) || note.internal === true) continue;
      if (note.jsonmodel_type === 'note_bibliography') this.bibliography(note);
      else if (note.jsonmodel_type === 'note_index') this.index(note);
      else if (ARCHDESC_NOTES.has(note.type)) {
        if (note.type === 'legalstatus') this.legalStatus(note);
        else this.blockNote(note);
      }
    }
    const points = accessPoints(r, this.o);
    if (!points.length) return;
    this.w.open('controlaccess');
    for (const p of points) this.name(p.element, p, p.terms);
    this.w.close('controlaccess');
  }

  /** Opens a note's element with its head (its label, else `head`). */
  protected openNote(element: string, note: Obj, head: string): void {
    this.w.open(element, { id: prefixId(note.persistent_id), audience: this.audience(note) });
    this.w.open('head').raw(this.phrase(String(note.label ?? head))).close();
  }

  /** Writes a text's paragraphs; 1 when there were any. */
  private paragraphsOf(text: string): number {
    const p = this.paragraphs(text);
    if (p) this.w.raw(p);
    return p ? 1 : 0;
  }

  private blockNote(note: Obj): void {
    const w = this.w;
    this.openNote(note.type, note, NOTE_HEADS[note.type] ?? note.type);
    let blocks = 0;
    for (const text of noteContents(note)) blocks += this.paragraphsOf(text);
    for (const sub of note.subnotes ?? []) {
      if (!this.shown(sub)) continue;
      if (sub.jsonmodel_type === 'note_text') blocks += this.paragraphsOf(String(sub.content ?? ''));
      else if (sub.jsonmodel_type === 'note_chronology') blocks += this.chronology(sub);
      else if (sub.jsonmodel_type === 'note_orderedlist' || sub.jsonmodel_type === 'note_definedlist') blocks += this.list(sub);
    }
    if (this.needsEmptyParagraph('note', note, blocks)) w.open('p').close();
    w.close(note.type);
  }

  private chronology(sub: Obj): number {
    const w = this.w;
    if (!(sub.items ?? []).length) return 0;
    w.open('chronlist', { audience: this.audience(sub) });
    if (present(sub.title)) w.open('head').raw(this.phrase(String(sub.title))).close();
    for (const item of sub.items) {
      w.open('chronitem').open(this.chronDate).raw(this.phrase(String(item.event_date ?? ''))).close();
      const events = (item.events ?? []).filter(present);
      if (events.length <= 1) w.open('event').raw(this.phrase(String(events[0] ?? ''))).close();
      else {
        w.open(this.eventGroup);
        for (const ev of events) w.open('event').raw(this.phrase(String(ev))).close();
        w.close(this.eventGroup);
      }
      w.close('chronitem');
    }
    w.close('chronlist');
    return 1;
  }

  private list(sub: Obj): number {
    const w = this.w;
    const items = sub.items ?? [];
    if (!items.length) return 0;
    const ordered = sub.jsonmodel_type === 'note_orderedlist';
    const numeration = ordered && present(sub.enumeration) && sub.enumeration !== 'null' ? String(sub.enumeration) : undefined;
    w.open('list', this.listAttributes(ordered, numeration, this.audience(sub)));
    if (present(sub.title)) w.open('head').raw(this.phrase(String(sub.title))).close();
    for (const item of items) {
      if (ordered) w.open('item').raw(this.phrase(String(item))).close();
      else w.open('defitem').open('label').raw(this.phrase(String(item.label ?? ''))).close().open('item').raw(this.phrase(String(item.value ?? ''))).close().close();
    }
    w.close('list');
    return 1;
  }

  private bibliography(note: Obj): void {
    const w = this.w;
    this.openNote('bibliography', note, NOTE_HEADS.bibliography);
    let blocks = 0;
    for (const text of (Array.isArray(note.content) ? note.content : []).map(String)) blocks += this.paragraphsOf(text);
    for (const item of note.items ?? []) {
      if (!present(item)) continue;
      w.open('bibref').raw(this.phrase(String(item))).close();
      blocks++;
    }
    if (this.needsEmptyParagraph('bibliography', note, blocks)) w.open('p').close();
    w.close('bibliography');
  }

  private index(note: Obj): void {
    const w = this.w;
    this.openNote('index', note, NOTE_HEADS.index);
    for (const text of (Array.isArray(note.content) ? note.content : []).map(String)) this.paragraphsOf(text);
    const entries = (note.items ?? []).filter((item: Obj) => INDEX_ITEM_ELEMENTS[item.type]);
    for (const item of entries) {
      w.open('indexentry');
      this.name(INDEX_ITEM_ELEMENTS[item.type], {}, [[String(item.value ?? ''), undefined]]);
      if (present(item.reference_text)) w.open('ref', this.indexReference(item)).raw(this.phrase(String(item.reference_text))).close();
      w.close('indexentry');
    }
    if (!entries.length) this.noIndexEntries();
    w.close('index');
  }
}

/** Writes a whole finding aid: the description first (sent at once), then the components as the walk reads them. */
export async function writeFindingAid(s: Services, w: XmlWriter, resource: Resource, repository: Repository, o: EadOptions, writer: EadFamilyWriter): Promise<void> {
  writer.begin(resource, repository, await repositoryAddress(s, repository));
  writer.description(resource, repository);
  w.open('dsc');
  // The description goes out before the tree is read: a publishing pipeline sees the first byte at once.
  await w.flush(true);
  await walkComponents(s, String(resource.uri), findingAidComponents(o), {
    enter: (c) => writer.openComponent(c.record as ArchivalObject, c.depth),
    leave: async () => {
      w.close();
      await w.flush();
    },
  });
  w.close('dsc');
  w.close('archdesc');
  w.close('ead');
}
