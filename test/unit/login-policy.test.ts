import { clientKey, delaySeconds, LOCKOUT_MAX_SECONDS } from '../../src/auth/login-policy';

describe('clientKey: what login limits count a client as', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0:0:1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    // NAT64 (RFC 6052): the IPv4 client the translator carries, not the translator's /64
    ['64:ff9b::203.0.113.7', '203.0.113.7'],
    ['64:ff9b::cb00:7107', '203.0.113.7'],
    ['64:ff9b::1:cb00:7107', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s → %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it('every address of one IPv6 /64 shares a key; the neighbouring /64 does not', () => {
    const keys = new Set(Array.from({ length: 50 }, (_, i) => clientKey(`2001:db8:aa:bb:${i.toString(16)}:${(i * 7).toString(16)}::${i}`)));
    expect([...keys]).toEqual(['2001:db8:aa:bb::/64']);
    expect(clientKey('2001:db8:aa:bc::1')).not.toBe(clientKey('2001:db8:aa:bb::1'));
  });
});

describe('delaySeconds: free failures, then an exponential delay with a cap', () => {
  it('is 0 within the free failures, then 1 s, 2 s, 4 s, … up to 15 min', () => {
    expect([0, 1, 2].map((f) => delaySeconds(f, 3))).toEqual([0, 0, 0]);
    expect([3, 4, 5, 6].map((f) => delaySeconds(f, 3))).toEqual([1, 2, 4, 8]);
    expect(delaySeconds(3 + 20, 3)).toBe(LOCKOUT_MAX_SECONDS);
    expect(delaySeconds(1e9, 3)).toBe(LOCKOUT_MAX_SECONDS);
  });
});
