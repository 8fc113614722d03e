/**
 * EAC-CPF import (`eac_xml`): the entity a record describes becomes an agent (person, corporate
 * body or family), one transaction per file. Read as a stream of blocks (control, identity,
 * description), so large files with many relations stay small in memory.
 *
 * element → record (as ArchivesSpace's EAC converter):
 *   identity/entityType → agent_person, agent_corporate_entity, agent_family
 *   identity/nameEntry (part@localType surname/forename..., or parts joined; authorizedForm) → names
 *     (the first, or the one marked authorized, is authorized and the display name)
 *   control/recordId, otherRecordId → agent_record_identifiers; maintenanceAgency/agencyName → agent_record_controls
 *   description/existDates (date, dateRange fromDate/toDate @standardDate) → dates_of_existence
 *   description/biogHist (p, chronList) → a bioghist note
 * An agent whose record id is already held by one in the store is not created again (the file
 * reports it as matched).
 */
import type { Obj } from '../../json';
import { importFile, ImportSession } from './session';
import { recordsWithJsonValue } from '../../store/record-finders';
import { descendants, kid, kids, markupOf, Path, readBlocks, textOf, XmlNode } from './xml-blocks';
import { ImportFailed, Importer, ImportReport } from './types';

const ENTITY_TYPES: Record<string, string> = { person: 'agent_person', corporateBody: 'agent_corporate_entity', family: 'agent_family' };
const STANDARD = /^\d{4}(-\d{2}(-\d{2})?)?$/;

class EacImport extends ImportSession {
  private control: XmlNode | undefined;
  private identity: XmlNode | undefined;
  private description: XmlNode | undefined;
  private created: string | undefined;

  private root = '';
  private records = 0;

  isBlock(name: string): boolean {
    return name === 'control' || name === 'identity' || name === 'description' || name === 'eac-cpf';
  }

  /**
   * The root is eac-cpf, or an envelope around one or more (an <export> some systems write): each
   * eac-cpf in it is a record of its own.
   */
  async onOpen(node: XmlNode, path: Path): Promise<void> {
    if (path.length === 1) this.root = node.name;
    if (node.name === 'eac-cpf') [this.control, this.identity, this.description] = [undefined, undefined, undefined];
  }

  async onBlock(node: XmlNode, path: Path): Promise<void> {
    if (node.name === 'control' && path[path.length - 2] === 'eac-cpf') this.control = node;
    else if (node.name === 'identity' && !this.identity) this.identity = node;
    else if (node.name === 'description' && !this.description) this.description = node;
    else if (node.name === 'eac-cpf') {
      this.records++;
      await this.write();
    }
  }

  private nameOf(entry: XmlNode, type: string): Obj {
    const parts = kids(entry, 'part');
    const byType = (...types: string[]) => parts.filter((p) => types.includes(p.attrs.localType ?? '')).map(textOf).filter(Boolean).join(' ');
    const whole = parts.map(textOf).filter(Boolean).join(', ') || textOf(entry);
    const heading = whole.slice(0, 255);
    const common = { sort_name: heading, sort_name_auto_generate: false, source: this.value('name_source', 'local') };
    if (type === 'agent_person') {
      const surname = byType('surname', 'familyname');
      const forename = byType('forename', 'givenname');
      return surname ? { primary_name: surname, rest_of_name: forename || undefined, name_order: 'inverted', ...common } : { primary_name: heading, name_order: 'inverted', ...common };
    }
    if (type === 'agent_family') return { family_name: heading, ...common };
    return { primary_name: heading, ...common };
  }

  private async write(): Promise<void> {
    const where = 'eac-cpf/cpfDescription/identity';
    const entity = textOf(kid(this.identity, 'entityType'));
    const type = ENTITY_TYPES[entity];
    if (!this.identity) throw new ImportFailed(`${this.input.name}: no cpfDescription/identity: nothing to import`);
    if (!type) throw new ImportFailed(`${this.input.name}: ${where}/entityType: "${entity}" is not person, corporateBody or family`);
    const entries = [...kids(this.identity, 'nameEntry'), ...descendants(kid(this.identity, 'nameEntryParallel'), 'nameEntry')];
    if (!entries.length) throw new ImportFailed(`${this.input.name}: ${where}: no nameEntry: an agent needs a name`);
    const authorized = entries.findIndex((e) => kid(e, 'authorizedForm'));
    const names = entries.map((e, i) => ({ ...this.nameOf(e, type), authorized: i === Math.max(0, authorized), is_display_name: i === Math.max(0, authorized) }));
    const recordId = textOf(kid(this.control, 'recordId'));
    if (recordId) {
      const [existing] = await recordsWithJsonValue(this.trx, { type }, 'record_identifier', recordId, 1);
      if (existing && (existing.record.agent_record_identifiers ?? []).some((r: Obj) => r.record_identifier === recordId)) {
        this.warn(`an agent with the record id ${recordId} exists already (${existing.uri}); it was not created again`);
        this.created = existing.uri;
        return;
      }
    }
    const body: Obj = {
      publish: true, names,
      agent_record_identifiers: recordId ? [{ record_identifier: recordId.slice(0, 255), primary_identifier: true, source: this.value('name_source', 'local') }] : [],
      dates_of_existence: this.existDates(),
      notes: this.biogHist(),
    };
    const agency = textOf(descendants(this.control, 'agencyName')[0]);
    if (agency) body.agent_record_controls = [{ maintenance_agency: agency.slice(0, 255), maintenance_status: this.maintenanceStatus() }];
    this.created = await this.create(type, body, [where]);
  }

  /** maintenanceStatus in the protected list (EAC's "revised" is its "revised_corrected"). */
  private maintenanceStatus(): string {
    const raw = textOf(kid(this.control, 'maintenanceStatus')) || 'new';
    const allowed = this.s.enums.get('maintenance_status')?.values ?? [];
    const value = allowed.includes(raw) ? raw : allowed.find((v) => v.startsWith(raw)) ?? 'new';
    if (value !== raw) this.warn(`control/maintenanceStatus "${raw}" recorded as "${value}"`);
    return value;
  }

  private existDates(): Obj[] {
    const dates = kid(this.description, 'existDates');
    if (!dates) return [];
    const std = (n: XmlNode | undefined) => (n?.attrs.standardDate && STANDARD.test(n.attrs.standardDate) ? n.attrs.standardDate : undefined);
    const range = descendants(dates, 'dateRange')[0];
    if (range) {
      const from = kid(range, 'fromDate');
      const to = kid(range, 'toDate');
      return [{
        date_label: 'existence', date_type_structured: 'range',
        structured_date_range: {
          begin_date_standardized: std(from), begin_date_expression: std(from) ? undefined : textOf(from) || undefined,
          end_date_standardized: std(to), end_date_expression: std(to) ? undefined : textOf(to) || undefined,
        },
      }].filter((d) => Object.values(d.structured_date_range).some(Boolean));
    }
    const single = descendants(dates, 'date')[0];
    if (!single) return [];
    return [{ date_label: 'existence', date_type_structured: 'single', structured_date_single: { date_role: 'begin', date_standardized: std(single), date_expression: std(single) ? undefined : textOf(single) || undefined } }];
  }

  private biogHist(): Obj[] {
    const bio = kid(this.description, 'biogHist');
    if (!bio) return [];
    const subnotes = kids(bio).filter((c) => c.name === 'p' || c.name === 'abstract').map((p) => ({ jsonmodel_type: 'note_text', content: markupOf(p), publish: true })).filter((n) => n.content);
    const chron = kid(bio, 'chronList');
    if (chron) {
      subnotes.push({
        jsonmodel_type: 'note_chronology', publish: true,
        items: kids(chron, 'chronItem').map((i) => ({ event_date: textOf(kid(i, 'date') ?? kid(i, 'dateRange')) || undefined, events: [textOf(kid(i, 'event'))].filter(Boolean) })),
      } as unknown as { jsonmodel_type: string; content: string; publish: boolean });
    }
    return subnotes.length ? [{ jsonmodel_type: 'note_bioghist', publish: true, subnotes }] : [];
  }

  result(): ImportReport {
    if (!this.records) {
      throw new ImportFailed(this.root === 'eac-cpf' ? `${this.input.name}: no cpfDescription: nothing to import`
        : `${this.input.name}: no eac-cpf record in the file (its root element is <${this.root}>); not an EAC-CPF file`);
    }
    if (!this.created) throw new ImportFailed(`${this.input.name}: no cpfDescription: nothing to import`);
    return this.report;
  }
}

export const eacImporter: Importer = {
  type: 'eac_xml',
  label: 'Import EAC-CPF records from an XML file',
  async run(s, repoId, actor, input, out) {
    return importFile(s, out, async (writer) => {
      const job = new EacImport(s, writer, repoId, actor, input, out);
      await readBlocks(input.path, input.name, job, out.signal);
      return job.result();
    });
  },
};
