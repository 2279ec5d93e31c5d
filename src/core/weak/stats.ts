import { scoreSpans, type SpanScores } from '../metrics';
import type { Span } from '../types';
import { UNKNOWN_TYPE } from '../types';
import type { SourceOutput } from './aggregate';
import type { SourceReliability } from './reliability';

export interface SourceStats {
  name: string;
  spans: number;
  /** Share of all tokens this source labels. */
  coverage: number;
  /** Share of this source's tokens that another source labels too. */
  overlap: number;
  /** Share of this source's tokens that another source labels with another known type. */
  conflict: number;
  unknownSpans: number;
  /** Against gold where the documents have it (dev split). */
  gold?: SpanScores;
  /** Per type it labels, its reliability as the HMM estimates it (reliability.ts); absent where no HMM aggregated. */
  reliability?: SourceReliability[string];
}

/**
 * A labeling-function summary in the manner of Snorkel's LFAnalysis: coverage, overlaps and
 * conflicts per source, and with gold, span precision / recall / F1 per source and type.
 */
export function sourceStats(sources: readonly SourceOutput[], docLengths: readonly number[], gold?: { docs: number[]; spans: Span[][] }): SourceStats[] {
  const total = docLengths.reduce((a, b) => a + b, 0);
  const labelAt = sources.map((src) =>
    docLengths.map((n, d) => {
      const lab = new Array<string | null>(n).fill(null);
      for (const s of src.spans[d]) for (let t = s.start; t < s.end; t++) lab[t] = s.label;
      return lab;
    }),
  );
  return sources.map((src, k) => {
    let covered = 0;
    let overlap = 0;
    let conflict = 0;
    docLengths.forEach((n, d) => {
      for (let t = 0; t < n; t++) {
        const mine = labelAt[k][d][t];
        if (mine === null) continue;
        covered++;
        let o = false;
        let c = false;
        for (let j = 0; j < sources.length; j++) {
          if (j === k) continue;
          const theirs = labelAt[j][d][t];
          if (theirs === null) continue;
          o = true;
          if (theirs !== mine && theirs !== UNKNOWN_TYPE && mine !== UNKNOWN_TYPE) c = true;
        }
        if (o) overlap++;
        if (c) conflict++;
      }
    });
    const stats: SourceStats = {
      name: src.name,
      spans: src.spans.reduce((a, s) => a + s.length, 0),
      coverage: total ? covered / total : 0,
      overlap: covered ? overlap / covered : 0,
      conflict: covered ? conflict / covered : 0,
      unknownSpans: src.spans.reduce((a, s) => a + s.filter((x) => x.label === UNKNOWN_TYPE).length, 0),
    };
    if (gold?.docs.length)
      stats.gold = scoreSpans(
        gold.spans,
        gold.docs.map((d) => src.spans[d]),
      );
    return stats;
  });
}
