import { describe, expect, it } from 'vitest';
import { completeTags } from './completion';

const tags = ['O', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC'];
const ids = (xs: string) => xs.split(' ').map((t) => tags.indexOf(t));

describe('completeTags', () => {
  // "Benjamin Netanyahu met Opel AG in Gaza": the weak labels mark "Benjamin" alone, type "Opel"
  // PER and miss "Gaza"; the teacher finds the whole name, "Opel AG" as ORG, and Gaza.
  const weak = ids('B-PER O O B-PER O O O');
  const teacher = ids('B-PER I-PER O B-ORG I-ORG O B-LOC');

  it('without relabel keeps every weak entity tag and fills only weak O tokens (Eq. 2)', () => {
    const c = completeTags(weak, teacher, tags, false);
    expect(c.tags).toEqual(ids('B-PER I-PER O B-PER I-ORG O B-LOC'));
    expect(c.relabeled).toBe(0);
  });

  it('with relabel takes the teacher spans over the weak spans they overlap, and keeps the weak spans it does not touch', () => {
    const c = completeTags(weak, teacher, tags, true);
    expect(c.tags).toEqual(ids('B-PER I-PER O B-ORG I-ORG O B-LOC'));
    expect(c.relabeled).toBe(2);
    // A weak span the teacher calls O stays; a teacher span equal to the weak one replaces nothing.
    const kept = completeTags(ids('B-PER I-PER O B-LOC O O O'), ids('B-PER I-PER O O O O O'), tags, true);
    expect(kept.tags).toEqual(ids('B-PER I-PER O B-LOC O O O'));
    expect(kept.relabeled).toBe(0);
    // One teacher span over two weak spans replaces both.
    const joined = completeTags(ids('B-ORG B-LOC O O O O O'), ids('B-ORG I-ORG O O O O O'), tags, true);
    expect(joined.tags).toEqual(ids('B-ORG I-ORG O O O O O'));
    expect(joined.relabeled).toBe(2);
  });

  it('writes IO tags for an IO tag set', () => {
    const io = ['O', 'I-PER', 'I-LOC'];
    const c = completeTags([1, 0, 0], [2, 2, 0], io, true);
    expect(c.tags).toEqual([2, 2, 0]);
  });
});
