import { Semaphore } from '../../src/util/semaphore';

it('runs at most `max` tasks at once, in FIFO order', async () => {
  const s = new Semaphore(2);
  let active = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(
    [0, 1, 2, 3, 4, 5].map((i) =>
      s.run(async () => {
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        await new Promise((r) => setTimeout(r, 5));
        active--;
      }),
    ),
  );
  expect(peak).toBe(2);
  expect(order).toEqual([0, 1, 2, 3, 4, 5]);
});

it('releases its slot when a task throws', async () => {
  const s = new Semaphore(1);
  await expect(s.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await expect(s.run(() => Promise.resolve(42))).resolves.toBe(42);
});
