import type { CaseMode } from './normalize';
import { normalizeToken } from './normalize';

/**
 * A corpus flattened into token ids under one case mode, with -1 between sentences so that no
 * match crosses a sentence boundary. Built once per corpus and mode; a gazetteer edit only
 * rebuilds the trie over the same vocabulary, which is what makes re-labeling incremental.
 */
export class TokenIndex {
  readonly vocab = new Map<string, number>();
  /** Flat token ids, -1 at sentence ends. */
  ids: Int32Array = new Int32Array(0);
  /** Position in `ids` of each document's first token. */
  docStart: Int32Array = new Int32Array(0);
  /** Per flat position, the token index within its document (for mapping matches back). */
  docToken: Int32Array = new Int32Array(0);
  /** Per flat position, the document ordinal. */
  docOf: Int32Array = new Int32Array(0);

  constructor(readonly mode: CaseMode) {}

  intern(tok: string): number {
    const key = normalizeToken(tok, this.mode);
    let id = this.vocab.get(key);
    if (id === undefined) {
      id = this.vocab.size;
      this.vocab.set(key, id);
    }
    return id;
  }

  /** The id of a token in this corpus, or -1 when the corpus never has it. */
  lookup(tok: string): number {
    return this.vocab.get(normalizeToken(tok, this.mode)) ?? -1;
  }

  /** Documents as token arrays with sentence starts. */
  static build(mode: CaseMode, docs: readonly { tokens: readonly string[]; sentenceStarts: readonly number[] }[]): TokenIndex {
    const index = new TokenIndex(mode);
    let total = 0;
    for (const d of docs) total += d.tokens.length + d.sentenceStarts.length;
    const ids = new Int32Array(total);
    const docToken = new Int32Array(total).fill(-1);
    const docOf = new Int32Array(total).fill(-1);
    const docStart = new Int32Array(docs.length);
    // Interning is the cost that dominates; a per-string cache skips normalization for repeats.
    const seen = new Map<string, number>();
    let p = 0;
    docs.forEach((d, k) => {
      docStart[k] = p;
      let s = 1;
      for (let i = 0; i < d.tokens.length; i++) {
        if (s < d.sentenceStarts.length && d.sentenceStarts[s] === i) {
          ids[p++] = -1;
          s++;
        }
        const tok = d.tokens[i];
        let id = seen.get(tok);
        if (id === undefined) {
          id = index.intern(tok);
          seen.set(tok, id);
        }
        docToken[p] = i;
        docOf[p] = k;
        ids[p++] = id;
      }
      ids[p++] = -1;
    });
    index.ids = ids.subarray(0, p);
    index.docStart = docStart;
    index.docToken = docToken.subarray(0, p);
    index.docOf = docOf.subarray(0, p);
    return index;
  }
}
