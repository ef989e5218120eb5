/**
 * The order files start in: longest first within each project (projects still run one after
 * another), so a worker is not left alone with a long file at a project's end while the other
 * waits. Vitest does this by itself from its cache (node_modules/.vite), which a clean checkout
 * (the CI) does not have: there, the durations come from `test/durations.json`, written from
 * this machine's cache by `npm run test:durations`. A file in neither starts first (it may be
 * long). A file that failed last time still starts first, as Vitest's own order has it.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** `project:path` -> seconds; missing or unreadable: an empty table (Vitest's own order). */
function recorded(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<
      string,
      number
    >;
  } catch {
    return {};
  }
}

export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const table = recorded();
    const cache = this.ctx.cache;
    const key = (spec: TestSpecification) =>
      `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId).split('\\').join('/')}`;
    const facts = new Map(
      files.map((spec) => {
        const cached = cache.getFileTestResults(key(spec));
        const seconds = cached ? cached.duration / 1000 : table[key(spec)];
        return [spec, { failed: cached?.failed === true, seconds: seconds ?? Number.POSITIVE_INFINITY }];
      }),
    );
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const fa = facts.get(a)!;
      const fb = facts.get(b)!;
      if (fa.failed !== fb.failed) return fa.failed ? -1 : 1;
      if (fa.seconds === fb.seconds) return 0;
      return fb.seconds > fa.seconds ? 1 : -1;
    });
  }
}
