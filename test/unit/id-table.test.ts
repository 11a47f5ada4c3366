import { randomUUID } from 'node:crypto';
import { IdTable } from '../../src/search/id-table';

/** The vector index's compact id table (src/search/id-table.ts). */
describe('IdTable', () => {
  it('gives every row its id back and every id its row, through growth', () => {
    const t = new IdTable();
    const ids = Array.from({ length: 50_000 }, () => randomUUID());
    ids.forEach((id, i) => expect(t.push(id)).toBe(i));
    expect(t.length).toBe(ids.length);
    for (let i = 0; i < ids.length; i += 7) {
      expect(t.id(i)).toBe(ids[i]);
      expect(t.get(ids[i])).toBe(i);
    }
    expect(t.get(randomUUID())).toBeUndefined();
  });

  it('maps an id added again to its newer row, and keeps the older row readable', () => {
    const t = new IdTable();
    const a = randomUUID();
    const b = randomUUID();
    t.push(a);
    t.push(b);
    expect(t.push(a)).toBe(2);
    expect(t.get(a)).toBe(2);
    expect(t.get(b)).toBe(1);
    expect(t.id(0)).toBe(a);
    // and after the table grows (a rehash), still the newer row
    for (let i = 0; i < 5000; i++) t.push(randomUUID());
    expect(t.get(a)).toBe(2);
  });

  it('reads ids in either case as the same id, answers nothing for a non-UUID and refuses to add one', () => {
    const t = new IdTable();
    const id = randomUUID();
    t.push(id.toUpperCase());
    expect(t.get(id)).toBe(0);
    expect(t.id(0)).toBe(id);
    expect(t.get('not-a-uuid')).toBeUndefined();
    expect(() => t.push('not-a-uuid')).toThrow(/not a UUID/);
  });

  it('holds ids that differ in one word only apart', () => {
    const t = new IdTable();
    const ids = Array.from({ length: 3000 }, (_, i) => `00000000-${i.toString(16).padStart(4, '0')}-4000-8000-000000000000`);
    ids.forEach((id) => t.push(id));
    ids.forEach((id, i) => expect(t.get(id)).toBe(i));
  });
});
