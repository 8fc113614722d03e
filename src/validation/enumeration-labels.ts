/**
 * The English labels ArchivesSpace's staff interface shows for the values of its value lists
 * ("English" for the language eng, "Local sources" for the subject source local), as its English
 * locale has them. Archivists fill spreadsheets with what they see, so a sheet's cell may hold the
 * label where the record holds the value. Values without a label of their own are left out.
 */
import labels from './enumeration-labels.json';

const byList = labels as Record<string, Record<string, string>>;

/** The label shown for a value of a list; undefined where it has none but the value itself. */
export function enumerationLabel(list: string, value: string): string | undefined {
  return byList[list]?.[value];
}
