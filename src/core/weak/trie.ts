/**
 * A trie over token ids, in flat typed arrays. The first step is a direct array lookup indexed by
 * token id; deeper steps go through an open-addressing hash table on (node, token). Per node, one
 * flag byte says whether anything ends there and whether any edge leaves it, so the hot loop skips
 * the hash probe after the many phrases that are one token long.
 */
const ENDS = 1;
const HAS_CHILD = 2;

export class TokenTrie {
  private readonly rootNext: Int32Array;
  private keysNode: Int32Array;
  private keysTok: Int32Array;
  private vals: Int32Array;
  private mask: number;
  private edges = 0;
  private nodes = 1;
  /** Per node: ENDS | HAS_CHILD. */
  private flags: Uint8Array;
  /** Per node, its first payload (-1 when none); payloads chain through `nextPayload`. */
  private firstPayload: Int32Array;
  private readonly payloadValue: number[] = [];
  private readonly nextPayload: number[] = [];

  /** `vocabSize` bounds the token ids; `maxNodes` bounds the nodes (the total phrase length + 1). */
  constructor(vocabSize: number, maxNodes: number) {
    this.rootNext = new Int32Array(Math.max(1, vocabSize)).fill(-1);
    let cap = 16;
    while (cap < maxNodes * 2) cap <<= 1;
    this.keysNode = new Int32Array(cap).fill(-1);
    this.keysTok = new Int32Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
    this.flags = new Uint8Array(maxNodes + 1);
    this.firstPayload = new Int32Array(maxNodes + 1).fill(-1);
  }

  private slot(node: number, tok: number): number {
    let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(tok, 0x85ebca77)) & this.mask;
    while (this.keysNode[h] !== -1 && (this.keysNode[h] !== node || this.keysTok[h] !== tok)) h = (h + 1) & this.mask;
    return h;
  }

  private newNode(): number {
    const node = this.nodes++;
    if (node >= this.flags.length) {
      const flags = new Uint8Array(this.flags.length * 2);
      flags.set(this.flags);
      this.flags = flags;
      const first = new Int32Array(this.firstPayload.length * 2).fill(-1);
      first.set(this.firstPayload);
      this.firstPayload = first;
    }
    return node;
  }

  private grow(): void {
    const { keysNode, keysTok, vals } = this;
    const cap = keysNode.length * 2;
    this.keysNode = new Int32Array(cap).fill(-1);
    this.keysTok = new Int32Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
    for (let i = 0; i < keysNode.length; i++) {
      if (keysNode[i] === -1) continue;
      const h = this.slot(keysNode[i], keysTok[i]);
      this.keysNode[h] = keysNode[i];
      this.keysTok[h] = keysTok[i];
      this.vals[h] = vals[i];
    }
  }

  /** Token ids must be below the constructor's `vocabSize`. */
  insert(tokens: ArrayLike<number>, payload: number): void {
    let node = this.rootNext[tokens[0]];
    if (node < 0) node = this.rootNext[tokens[0]] = this.newNode();
    for (let d = 1; d < tokens.length; d++) {
      if ((this.edges + 1) * 2 > this.keysNode.length) this.grow();
      const h = this.slot(node, tokens[d]);
      if (this.keysNode[h] === -1) {
        this.keysNode[h] = node;
        this.keysTok[h] = tokens[d];
        this.vals[h] = this.newNode();
        this.edges++;
        this.flags[node] |= HAS_CHILD;
      }
      node = this.vals[h];
    }
    this.flags[node] |= ENDS;
    this.payloadValue.push(payload);
    this.nextPayload.push(this.firstPayload[node]);
    this.firstPayload[node] = this.payloadValue.length - 1;
  }

  payloads(node: number): number[] {
    const out: number[] = [];
    for (let p = this.firstPayload[node]; p >= 0; p = this.nextPayload[p]) out.push(this.payloadValue[p]);
    return out.reverse();
  }

  /**
   * For every start position, the longest match beginning there. Writes (start, end, node)
   * triples into the returned array; -1 ids never match, so sentences bound every match.
   */
  longestMatches(ids: Int32Array): Int32Array {
    const { rootNext, keysNode, keysTok, vals, mask, flags } = this;
    const rootLen = rootNext.length;
    let buf = new Int32Array(Math.max(1024, ids.length >> 1));
    let m = 0;
    const n = ids.length;
    for (let i = 0; i < n; i++) {
      const t0 = ids[i];
      if (t0 < 0 || t0 >= rootLen) continue;
      let node = rootNext[t0];
      if (node < 0) continue;
      let f = flags[node];
      let lastEnd = f & ENDS ? i + 1 : -1;
      let lastNode = node;
      for (let j = i + 1; f & HAS_CHILD && j < n; j++) {
        const t = ids[j];
        if (t < 0) break;
        let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(t, 0x85ebca77)) & mask;
        while (keysNode[h] !== -1 && (keysNode[h] !== node || keysTok[h] !== t)) h = (h + 1) & mask;
        if (keysNode[h] === -1) break;
        node = vals[h];
        f = flags[node];
        if (f & ENDS) {
          lastEnd = j + 1;
          lastNode = node;
        }
      }
      if (lastEnd < 0) continue;
      if (m + 3 > buf.length) {
        const b = new Int32Array(buf.length * 2);
        b.set(buf);
        buf = b;
      }
      buf[m++] = i;
      buf[m++] = lastEnd;
      buf[m++] = lastNode;
    }
    return buf.subarray(0, m);
  }
}
