import { ApiKeyCipher, ApiKeyDecryptError, maskApiKey } from '../../src/llm/api-key-crypto';
import { checkAddress, isNonPublicAddress } from '../../src/llm/network-guard';

describe('API key encryption (AES-256-GCM, key derived from the server secret)', () => {
  const cipher = new ApiKeyCipher('server-secret-server-secret');

  it('round-trips, and never stores the plaintext', () => {
    const enc = cipher.encrypt('sk-secret-value');
    expect(enc).not.toContain('sk-secret-value');
    expect(cipher.decrypt(enc)).toBe('sk-secret-value');
  });
  it('uses a fresh IV each time', () => {
    expect(cipher.encrypt('same')).not.toBe(cipher.encrypt('same'));
  });
  it('a tampered ciphertext or another secret cannot decrypt', () => {
    const enc = cipher.encrypt('sk-secret-value');
    const parts = enc.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'))).toThrow(ApiKeyDecryptError);
    expect(() => new ApiKeyCipher('another-secret-another').decrypt(enc)).toThrow(/JWT_SECRET/);
  });
  it('the empty key stays empty', () => {
    expect(cipher.encrypt('')).toBe('');
    expect(cipher.decrypt('')).toBe('');
  });
  it('masks as prefix…suffix', () => {
    expect(maskApiKey('sk-abcdefghijklmnop1234')).toBe('sk-a…1234');
    expect(maskApiKey('abcdefgh')).toBe('ab…gh');
    expect(maskApiKey('abc')).toBe('…');
    expect(maskApiKey('')).toBe('');
  });
});

describe('SSRF guard', () => {
  it.each(['127.0.0.1', '10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1'])('%s is not public', (a) => {
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
