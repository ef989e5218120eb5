/**
 * A file's name cut to at most `max` (measured by `size`: UTF-16 units by
 * default, or code points), whole characters only, before its extension
 * (`xxx…xxx….pdf`), so what is saved or shown still names its kind. Plain
 * code: the service (stored names) and the widget (captions) use it.
 */
export function shortenFileName(
  name: string,
  max: number,
  size: (s: string) => number = (s) => s.length,
): string {
  if (size(name) <= max) return name;
  const ext = /\.[^.\s]{1,16}$/u.exec(name)?.[0] ?? '';
  const room = max - size(ext) - 1;
  let kept = '';
  let used = 0;
  for (const char of name.slice(0, name.length - ext.length)) {
    used += size(char);
    if (used > room) break;
    kept += char;
  }
  return `${kept}…${ext}`;
}
