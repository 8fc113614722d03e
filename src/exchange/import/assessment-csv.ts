/**
 * Assessment CSV import (`assessment_csv`): ArchivesSpace's assessment template (its
 * AssessmentConverter), one assessment per row, all rows of a file in one transaction. The file
 * has two header rows: the first names each column's section (basic, rating, format,
 * conservation), the second its field; a column is "<section>_<field>", lower case, runs of other
 * characters made "_" (so "Film (negative slide or motion picture)" matches the definition
 * "Film (negative, slide, or motion picture)").
 *
 * column → assessment:
 *   basic_record (repeatable) → records: "resource_56", "accession/20", "archival_object 3",
 *     "digital_object.4" (type, then _ / . or space, then the id in the job's repository)
 *   basic_surveyed_by, basic_reviewer (repeatable) → surveyed_by, reviewer: a username, linked as
 *     the user's agent
 *   basic_survey_begin / _end → dates (M/D/YY[YY], D/M/YYYY when the first number is over 12, or ISO)
 *   basic_<field> → the assessment's field (booleans read 1, t, y, yes, true as true)
 *   rating_<label> (and rating_<label>_note) → ratings: the value and note of the rating definition of that label
 *   format_<label>, conservation_<label> (true) → formats, conservation_issues of the definition of that label
 * Labels are those of GET /repositories/:repo_id/assessment_attribute_definitions; one the
 * repository does not define fails the file, listing those it does.
 */
import type { Obj } from '../../json';
import { attributeDefinitionsOf } from '../../store/assessment-attributes';
import { RecordQueries } from '../../store/records';
import { userRowByName } from '../../store/users';
import { readCsv } from './csv';
import { importFile, ImportSession } from './session';
import { ImportFailed, Importer, ImportReport } from './types';

const RECORD_TYPES = ['resource', 'archival_object', 'accession', 'digital_object'];
const SECTIONS: Record<string, string> = { rating: 'rating', format: 'format', conservation: 'conservation_issue' };
const REPEATED = ['basic_record', 'basic_surveyed_by', 'basic_reviewer'];
const normal = (label: string) => label.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/_+$/, '');
const truthy = (v: string) => /^(1|t|y|yes|true)$/i.test(v.trim());

/** What a column does. */
type Column =
  | { kind: 'field'; field: string }
  | { kind: 'link'; field: 'records' | 'surveyed_by' | 'reviewer' }
  | { kind: 'attribute'; list: 'ratings' | 'formats' | 'conservation_issues'; id: number; note: boolean }
  | { kind: 'none' };

class AssessmentCsvImport extends ImportSession {
  private sections?: string[];
  private columns?: Column[];
  /** "basic survey_begin": each column by its two header cells, for messages. */
  private names: string[] = [];
  private rows = 0;
  private readonly users = new Map<string, string>();

  async onRow(line: number, cells: string[]): Promise<void> {
    if (!this.sections) {
      if (normal(cells[0] ?? '') !== 'basic') {
        throw new ImportFailed(`${this.input.name}: line ${line}: the first row names each column's section (basic, rating, format, conservation) and starts with "basic"; is this ArchivesSpace's assessment template?`);
      }
      this.sections = cells;
      return;
    }
    if (!this.columns) return this.readFields(line, cells);
    if (cells.every((c) => !c.trim())) return;
    await this.writeRow(line, cells);
    this.out.progress(++this.rows);
  }

  private async readFields(line: number, cells: string[]): Promise<void> {
    const definitions = await attributeDefinitionsOf(this.trx, this.repoId);
    const props = (this.s.registry.schemas.assessment?.properties ?? {}) as Record<string, Obj>;
    const unknown: string[] = [];
    this.names = this.sections!.map((section, i) => `${section.trim()} ${(cells[i] ?? '').trim()}`);
    this.columns = this.sections!.map((section, i) => {
      const name = normal(`${section}_${cells[i] ?? ''}`);
      const sectionName = normal(section);
      if (REPEATED.includes(name)) return { kind: 'link', field: name === 'basic_record' ? 'records' : name.slice('basic_'.length) } as Column;
      if (sectionName === 'basic') {
        const field = name.slice('basic_'.length);
        if (props[field] && !props[field].readOnly) return { kind: 'field', field };
        if (field) unknown.push(name);
        return { kind: 'none' };
      }
      const type = SECTIONS[sectionName];
      if (!type) {
        if (name !== '_' && name) unknown.push(name);
        return { kind: 'none' };
      }
      const note = type === 'rating' && /_note$/.test(name);
      const label = name.slice(sectionName.length + 1).replace(note ? /_note$/ : /$^/, '');
      const matched = definitions.filter((d) => d.type === type && normal(String(d.label)) === label);
      if (matched.length !== 1) {
        const allowed = definitions.filter((d) => d.type === type).map((d) => d.label).join(', ');
        throw new ImportFailed(matched.length
          ? `${this.input.name}: line ${line}, column ${i + 1} (${this.names[i]}): matches more than one ${type} (${matched.map((d) => d.label).join(', ')})`
          : `${this.input.name}: line ${line}, column ${i + 1} (${this.names[i]}): "${cells[i]}" is not a ${type} of this repository; its ${type}s are: ${allowed}`);
      }
      return { kind: 'attribute', list: type === 'rating' ? 'ratings' : type === 'format' ? 'formats' : 'conservation_issues', id: Number(matched[0].id), note };
    });
    if (unknown.length) this.warn(`columns not in the assessment template are ignored: ${unknown.join(', ')}`);
  }

  private async writeRow(line: number, cells: string[]): Promise<void> {
    const props = (this.s.registry.schemas.assessment?.properties ?? {}) as Record<string, Obj>;
    const body: Obj = { records: [], surveyed_by: [], reviewer: [], ratings: [], formats: [], conservation_issues: [] };
    const ratings = new Map<number, Obj>();
    for (const [i, column] of this.columns!.entries()) {
      const value = (cells[i] ?? '').trim();
      if (!value || column.kind === 'none') continue;
      if (column.kind === 'field') {
        const { field } = column;
        body[field] = props[field]?.type === 'boolean' ? truthy(value) : /^survey_(begin|end)$/.test(field) ? this.date(line, i, value) : value;
      } else if (column.kind === 'link') {
        body[column.field].push({ ref: column.field === 'records' ? await this.recordRef(line, i, value) : await this.userAgent(line, i, value) });
      } else if (column.list === 'ratings') {
        const rating = ratings.get(column.id) ?? { definition_id: column.id };
        rating[column.note ? 'note' : 'value'] = value;
        ratings.set(column.id, rating);
      } else if (truthy(value)) body[column.list].push({ definition_id: column.id, value: 'true' });
    }
    body.ratings = [...ratings.values()];
    await this.create('assessment', body, [`line ${line}`]);
  }

  /** "resource_56" → /repositories/:repo/resources/56, a record the repository holds. */
  private async recordRef(line: number, i: number, value: string): Promise<string> {
    const m = /^\s*([a-z_]*?)[_/. ]+(\d+)\s*$/.exec(value.toLowerCase());
    const fail = (why: string) => new ImportFailed(`${this.input.name}: line ${line}, column ${i + 1} (${this.names[i]}): ${why}`);
    if (!m) throw fail(`"${value}" is not a record reference; write the type, then _ / . or a space, then the id (resource_12, accession/3)`);
    if (!RECORD_TYPES.includes(m[1])) throw fail(`"${value}": a ${m[1] || '(no type)'} cannot be assessed; the types are ${RECORD_TYPES.join(', ')}`);
    const uri = `${this.s.registry.type(m[1]).uri!.replace(':repo_id', String(this.repoId))}/${Number(m[2])}`;
    const [found] = await new RecordQueries(this.trx).existing([uri]);
    if (!found) throw fail(`"${value}": this repository has no ${m[1]} ${Number(m[2])}`);
    return uri;
  }

  /**
   * A user's agent. ArchivesSpace gives every user one; a user here that has none gets an agent
   * person of their name (matched if one exists), with a warning.
   */
  private async userAgent(line: number, i: number, username: string): Promise<string> {
    const known = this.users.get(username);
    if (known) return known;
    const row = await userRowByName(this.trx, 'user', username);
    if (!row) throw new ImportFailed(`${this.input.name}: line ${line}, column ${i + 1} (${this.names[i]}): user '${username}' does not exist`);
    const user = JSON.parse(row.json) as Obj;
    let ref: string | undefined = user.agent_record?.ref;
    if (!ref) {
      ref = await this.agent('agent_person', String(user.name || username), { source: 'local' }, { name: { name_order: 'direct' } });
      this.warn(`line ${line}: user '${username}' has no agent record; linked to the agent ${ref} of their name`);
    }
    this.users.set(username, ref);
    return ref;
  }

  /** Spreadsheet dates: M/D/Y (D/M/Y when the first number is over 12; two-digit years this century unless past this year), else ISO. */
  private date(line: number, i: number, value: string): string {
    const slash = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec(value);
    let y: number;
    let m: number;
    let d: number;
    if (slash) {
      const [a, b] = [Number(slash[1]), Number(slash[2])];
      [m, d] = a > 12 ? [b, a] : [a, b];
      y = Number(slash[3]);
      if (slash[3].length === 2) y += y > new Date().getUTCFullYear() % 100 ? 1900 : 2000;
    } else {
      const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
      if (!iso) throw new ImportFailed(`${this.input.name}: line ${line}, column ${i + 1} (${this.names[i]}): "${value}" is not a date (YYYY-MM-DD or M/D/YYYY)`);
      [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    }
    const date = new Date(Date.UTC(y, m - 1, d));
    if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
      throw new ImportFailed(`${this.input.name}: line ${line}, column ${i + 1} (${this.names[i]}): "${value}" is not a date of the calendar`);
    }
    return date.toISOString().slice(0, 10);
  }

  result(): ImportReport {
    if (!this.sections) throw new ImportFailed(`${this.input.name}: the file is empty`);
    if (!this.rows) throw new ImportFailed(`${this.input.name}: no assessment rows below the two header rows`);
    return this.report;
  }
}

export const assessmentCsvImporter: Importer = {
  type: 'assessment_csv',
  label: 'Import Assessment records from a CSV file',
  async run(s, repoId, actor, input, out) {
    return importFile(s, out, async (writer) => {
      const job = new AssessmentCsvImport(s, writer, repoId, actor, input, out);
      await readCsv(input.path, input.name, (row) => job.onRow(row.line, row.cells), out.signal);
      return job.result();
    });
  },
};
