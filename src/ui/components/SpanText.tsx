import { memo } from 'react';
import type { Span } from '../../core/types';
import { UNKNOWN_TYPE } from '../../core/types';

interface Props {
  text: string;
  offsets: ArrayLike<number>;
  spans: readonly Span[];
  colors: Map<string, string>;
  /** Token indices to flag (conflicts between sources). */
  flagged?: ReadonlySet<number>;
}

/**
 * A document's text with labeled spans over it. Text goes through React as text nodes, never
 * as HTML, so imported documents cannot inject markup.
 */
export const SpanText = memo(function SpanText({ text, offsets, spans, colors, flagged }: Props) {
  const parts: React.ReactNode[] = [];
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let pos = 0;
  const n = offsets.length >> 1;
  const plain = (from: number, to: number, key: string) => {
    if (to <= from) return;
    if (!flagged?.size) {
      parts.push(text.slice(from, to));
      return;
    }
    // Split plain text at flagged tokens so conflicts show even outside the shown layer's spans.
    let p = from;
    for (let t = 0; t < n; t++) {
      const [s, e] = [offsets[2 * t], offsets[2 * t + 1]];
      if (s < from || e > to || !flagged.has(t)) continue;
      parts.push(text.slice(p, s));
      parts.push(
        <span key={`${key}-f${t}`} className="conflict" title="sources disagree here">
          {text.slice(s, e)}
        </span>,
      );
      p = e;
    }
    parts.push(text.slice(p, to));
  };
  sorted.forEach((s, k) => {
    const from = offsets[2 * s.start];
    const to = offsets[2 * (s.end - 1) + 1];
    if (from < pos) return;
    plain(pos, from, `p${k}`);
    const color = s.label === UNKNOWN_TYPE ? '#888' : (colors.get(s.label) ?? '#555');
    const conflict = flagged && [...Array(s.end - s.start).keys()].some((i) => flagged.has(s.start + i));
    const title = s.candidates ? `ambiguous: ${s.candidates.join(' / ')}` : s.label === UNKNOWN_TYPE ? 'entity of unknown type' : s.label;
    parts.push(
      <mark
        key={`s${k}`}
        className={conflict ? 'ent conflict' : 'ent'}
        style={{ borderColor: color, background: `${color}22` }}
        title={title}
        data-label={s.label}
      >
        {text.slice(from, to)}
        <span className="ent-label" style={{ background: color }}>
          {s.candidates ? s.candidates.join('/') : s.label}
        </span>
      </mark>,
    );
    pos = to;
  });
  plain(pos, text.length, 'end');
  return <div className="doc-text">{parts}</div>;
});
