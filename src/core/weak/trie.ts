/**
 * A trie over token ids. The first step is a direct array lookup indexed by token id (most
 * tokens start no match, so the hot loop is one load per token); deeper steps go through an
 * open-addressing hash table on (node, token) packed into typed arrays.
 */
export class TokenTrie {
  private rootNext: Int32Array;
  private keysNode: Int32Array;
  private keysTok: Int32Array;
  private vals: Int32Array;
  private mask: number;
  private nodes = 1;
  /** Per node, the payloads (entry indices) ending there. */
  private readonly out: number[][] = [[]];

  constructor(vocabSize: number, expectedEdges = 1024) {
    this.rootNext = new Int32Array(Math.max(1, vocabSize)).fill(-1);
    let cap = 16;
    while (cap < expectedEdges * 2) cap <<= 1;
    this.keysNode = new Int32Array(cap).fill(-1);
    this.keysTok = new Int32Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
  }

  private slot(node: number, tok: number): number {
    let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(tok, 0x85ebca77)) & this.mask;
    while (this.keysNode[h] !== -1 && (this.keysNode[h] !== node || this.keysTok[h] !== tok)) h = (h + 1) & this.mask;
    return h;
  }

  private edges = 0;

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

  insert(tokens: readonly number[], payload: number): void {
    let node = 0;
    tokens.forEach((tok, depth) => {
      if (depth === 0) {
        if (tok >= this.rootNext.length) {
          const bigger = new Int32Array(Math.max(tok + 1, this.rootNext.length * 2)).fill(-1);
          bigger.set(this.rootNext);
          this.rootNext = bigger;
        }
        if (this.rootNext[tok] < 0) {
          this.rootNext[tok] = this.nodes++;
          this.out.push([]);
        }
        node = this.rootNext[tok];
        return;
      }
      if ((this.edges + 1) * 2 > this.keysNode.length) this.grow();
      const h = this.slot(node, tok);
      if (this.keysNode[h] === -1) {
        this.keysNode[h] = node;
        this.keysTok[h] = tok;
        this.vals[h] = this.nodes++;
        this.out.push([]);
        this.edges++;
      }
      node = this.vals[h];
    });
    this.out[node].push(payload);
  }

  payloads(node: number): readonly number[] {
    return this.out[node];
  }

  /**
   * For every start position, the longest match beginning there. Writes (start, end, node)
   * triples into the returned array; -1 ids never match, so sentences bound every match.
   */
  longestMatches(ids: Int32Array): Int32Array {
    const { rootNext, keysNode, keysTok, vals, mask, out } = this;
    const rootLen = rootNext.length;
    let buf = new Int32Array(1024);
    let m = 0;
    const n = ids.length;
    for (let i = 0; i < n; i++) {
      const t0 = ids[i];
      if (t0 < 0 || t0 >= rootLen) continue;
      let node = rootNext[t0];
      if (node < 0) continue;
      let lastEnd = out[node].length ? i + 1 : -1;
      let lastNode = node;
      for (let j = i + 1; j < n; j++) {
        const t = ids[j];
        if (t < 0) break;
        let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(t, 0x85ebca77)) & mask;
        while (keysNode[h] !== -1 && (keysNode[h] !== node || keysTok[h] !== t)) h = (h + 1) & mask;
        if (keysNode[h] === -1) break;
        node = vals[h];
        if (out[node].length) {
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
