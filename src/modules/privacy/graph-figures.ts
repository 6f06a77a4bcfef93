/**
 * Graph-derived figures other areas show, measured and protected here so that they follow the member
 * set like discovery (decision 052): a question's measured total (model seeds, quotes) and the figures of
 * a delivery quote.
 */
import type { FilterCatalog } from '../../graph/index.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import type { MeasuredSet, Run } from './set-stats.ts';
import type { Question } from './question.ts';
import type { PrivacyService } from './service.ts';

export interface QuoteFigures {
  billing_count: number;
  already_licensed_count: number | null;
}

export function createGraphFigures(deps: {
  privacy: Pick<PrivacyService, 'measure' | 'shownCount' | 'floor'> & { question(query: MembershipQuery): Question };
  /** Runs a warehouse statement (with the service's statement timeout). */
  run: Run;
  catalog: () => Promise<FilterCatalog>;
  /** Persons in the current release (sizes the measure's sample). */
  persons: () => Promise<number>;
}) {
  const { privacy } = deps;
  /** The question's member set as shown, and the question answered (without its low-effect items). */
  async function measureQuestion(query: MembershipQuery): Promise<{ set: MeasuredSet; answered: MembershipQuery }> {
    const m = await privacy.measure(deps.run, query, { catalog: await deps.catalog(), persons: await deps.persons() });
    return { set: m.total, answered: m.query };
  }
  async function measureTotal(query: MembershipQuery): Promise<MeasuredSet> {
    return (await measureQuestion(query)).set;
  }
  return {
    measureQuestion,
    measureTotal,
    /**
     * A quote's figures as shown before purchase: the audience's own question, so `billing_count` is its
     * record_count, and below the floor the floor (an estimate never under the real cost). The
     * already-licensed members are a second number of that set (facet `licensed`): suppressed, none is
     * shown as licensed (again never under the real cost), and never more than the count. A customer's
     * own list alone (`ownList`) is exact.
     */
    async quoteFigures(input: { query: MembershipQuery; ownList: boolean; figures: QuoteFigures }): Promise<QuoteFigures> {
      if (input.ownList) return input.figures;
      const question = privacy.question(input.query);
      const set = await measureTotal(input.query);
      const billing_count = privacy.shownCount({ question, trueCount: set.n, set }).record_count ?? privacy.floor;
      const licensedTrue = input.figures.already_licensed_count;
      const licensed =
        licensedTrue === null
          ? null
          : Math.min(
              billing_count,
              privacy.shownCount({ question, trueCount: licensedTrue, set: { ...set, n: licensedTrue }, facet: 'licensed' }).record_count ??
                0,
            );
      return { billing_count, already_licensed_count: licensed };
    },
  };
}

export type GraphFigures = ReturnType<typeof createGraphFigures>;
