import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ApiKeyCipher, ApiKeyDecryptError, decryptLegacyApiKey, isLegacyApiKey, keyOrigin, maskApiKey } from '../../src/llm/api-key-crypto';
import { checkAddress, isNonPublicAddress } from '../../src/llm/network-guard';

describe('API key encryption (AES-256-GCM, key from ENCRYPTION_KEY, bound to the origin)', () => {
  const cipher = new ApiKeyCipher('server-secret-server-secret');
  const base = 'https://api.example.com/v1';

  it('round-trips, and never stores the plaintext', () => {
    const enc = cipher.encrypt('sk-secret-value', base);
    expect(enc).not.toContain('sk-secret-value');
    expect(enc.startsWith('v2.')).toBe(true);
    expect(cipher.decrypt(enc, base)).toBe('sk-secret-value');
  });
  it('uses a fresh IV each time', () => {
    expect(cipher.encrypt('same', base)).not.toBe(cipher.encrypt('same', base));
  });
  it('a tampered ciphertext or another key cannot decrypt', () => {
    const enc = cipher.encrypt('sk-secret-value', base);
    const parts = enc.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'), base)).toThrow(ApiKeyDecryptError);
    expect(() => new ApiKeyCipher('another-secret-another').decrypt(enc, base)).toThrow(/ENCRYPTION_KEY/);
  });
  it('decrypts only for the origin it was stored with (scheme, host, port); the path may change', () => {
    const enc = cipher.encrypt('sk-secret-value', base);
    expect(cipher.decrypt(enc, 'https://API.example.com:443/other/path')).toBe('sk-secret-value');
    for (const other of ['http://api.example.com/v1', 'https://attacker.example/v1', 'https://api.example.com:8443/v1']) {
      expect(() => cipher.decrypt(enc, other)).toThrow(/another origin/);
    }
    expect(keyOrigin('HTTPS://Api.Example.com:443/v1')).toBe('https://api.example.com');
  });
  it('the old v1 format is read only by the migration, with JWT_SECRET', () => {
    // exactly what the previous version stored: HKDF(JWT_SECRET), no associated data
    const key = Buffer.from(hkdfSync('sha256', 'old-jwt-secret-old-jwt', 'docqa/provider-api-key', 'aes-256-gcm v1', 32));
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([c.update('sk-old', 'utf8'), c.final()]);
    const v1 = ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    expect(isLegacyApiKey(v1)).toBe(true);
    expect(decryptLegacyApiKey(v1, 'old-jwt-secret-old-jwt')).toBe('sk-old');
    expect(() => cipher.decrypt(v1, base)).toThrow(ApiKeyDecryptError);
  });
  it('the empty key stays empty', () => {
    expect(cipher.encrypt('', base)).toBe('');
    expect(cipher.decrypt('', base)).toBe('');
  });
  it('masks as prefix…suffix', () => {
    expect(maskApiKey('sk-abcdefghijklmnop1234')).toBe('sk-a…1234');
    expect(maskApiKey('abcdefgh')).toBe('ab…gh');
    expect(maskApiKey('abc')).toBe('…');
    expect(maskApiKey('')).toBe('');
  });
});

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.5',
    '172.16.3.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    // issue 38: IPv4-compatible (::/96), IPv4-mapped in hex form and IPv4-translated (::ffff:0:0:0/96)
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::8.8.8.8',
    '::ffff:7f00:1',
    '::ffff:0:7f00:1',
    '::ffff:0:808:808',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::7f00:1',
  ])('%s is not public', (a) => {
    expect(isNonPublicAddress(a)).toBe(true);
  });
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1'])('%s is public', (a) => {
    expect(isNonPublicAddress(a)).toBe(false);
  });
  it('refuses private addresses unless allowed or allow-listed (host, address or CIDR)', () => {
    const strict = { allowPrivateNetwork: false, privateHostAllowList: [] };
    expect(() => checkAddress(strict, 'internal', '10.0.0.5')).toThrow(/not allowed/);
    expect(() => checkAddress(strict, 'public', '8.8.8.8')).not.toThrow();
    expect(() => checkAddress({ ...strict, allowPrivateNetwork: true }, 'internal', '10.0.0.5')).not.toThrow();
    expect(() => checkAddress({ ...strict, privateHostAllowList: ['llm.internal'] }, 'LLM.internal', '10.0.0.5')).not.toThrow();
    expect(() => checkAddress({ ...strict, privateHostAllowList: ['10.0.0.0/24'] }, 'x', '10.0.0.5')).not.toThrow();
    expect(() => checkAddress({ ...strict, privateHostAllowList: ['10.0.0.0/24'] }, 'x', '10.0.1.5')).toThrow();
    expect(() => checkAddress({ ...strict, privateHostAllowList: ['10.0.0.5'] }, 'x', '10.0.0.5')).not.toThrow();
  });
});
