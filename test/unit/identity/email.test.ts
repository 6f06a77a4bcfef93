import { describe, expect, it } from 'vitest';
import { emailMatchKey, emailSha256, normalizeEmail } from '../../../src/identity/normalize/email.ts';
import { normalizeSha256, sha256Hex } from '../../../src/identity/normalize/hash.ts';

describe('normalizeEmail', () => {
  it.each([
    ['  John.Doe@Example.COM  ', 'john.doe@example.com'],
    ['JANE@GMAIL.COM', 'jane@gmail.com'],
    ['mailto:bob@example.org', 'bob@example.org'],
    ['Bob Smith <Bob@Example.org>', 'bob@example.org'],
    ['<alice@example.io>', 'alice@example.io'],
    ['user@example.com.', 'user@example.com'],
    ['\tuser+tag@sub.example.co.uk\n', 'user+tag@sub.example.co.uk'],
    ['ｕｓｅｒ@ｅｘａｍｐｌｅ.com', 'user@example.com'], // full-width from CJK keyboards
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['user @ example.com', 'user@example.com'],
    ['x@xn--bcher-kva.de', 'x@xn--bcher-kva.de'],
  ])('%j -> %s', (raw, want) => {
    expect(normalizeEmail(raw)).toEqual({ value: want });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['not-an-email', 'email_malformed'],
    ['@example.com', 'email_malformed'],
    ['user@', 'email_malformed'],
    ['a@b@example.com', 'email_malformed'],
    ['user@localhost', 'email_malformed'],
    ['john..doe@example.com', 'email_malformed'],
    ['.john@example.com', 'email_malformed'],
    ['user@-example.com', 'email_malformed'],
    ['user@example.c', 'email_malformed'],
    ['user@example.123', 'email_malformed'],
    ['user@exa_mple.com', 'email_malformed'],
    ['"quoted"@example.com', 'email_malformed'],
    ['N/A', 'email_malformed'],
    [`${'a'.repeat(65)}@example.com`, 'email_malformed'],
  ])('%j is rejected with %s', (raw, code) => {
    const r = normalizeEmail(raw);
    expect(r.value).toBeNull();
    expect(r.warning?.code).toBe(code);
  });
});

describe('emailMatchKey', () => {
  it.each([
    ['john.doe+news@gmail.com', 'johndoe@gmail.com'],
    ['j.o.h.n.d.o.e@googlemail.com', 'johndoe@gmail.com'],
    ['johndoe@gmail.com', 'johndoe@gmail.com'],
    ['john.doe+a+b@outlook.com', 'john.doe@outlook.com'],
    ['john+x@hotmail.com', 'john@hotmail.com'],
    ['john+x@live.com', 'john@live.com'],
    ['jane+shop@icloud.com', 'jane@icloud.com'],
    ['jane+shop@me.com', 'jane@me.com'],
    ['jane+shop@fastmail.com', 'jane@fastmail.com'],
    ['jane+shop@protonmail.com', 'jane@protonmail.com'],
    ['jane+shop@proton.me', 'jane@proton.me'],
    // Yahoo '-' disposable addresses are deliberately not folded (see email.ts).
    ['jane-shop@yahoo.com', 'jane-shop@yahoo.com'],
    ['john.doe+x@example.com', 'john.doe+x@example.com'],
    ['+tag@gmail.com', '+tag@gmail.com'],
  ])('%s -> %s', (email, key) => {
    expect(emailMatchKey(email)).toBe(key);
  });
});

describe('hashes', () => {
  it('emailSha256 is lowercase hex of the normalized value', () => {
    expect(emailSha256('test@example.com')).toBe('973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  const h = '973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b';
  it.each([
    [h, h],
    [h.toUpperCase(), h],
    [`  ${h}\n`, h],
  ])('accepts pre-hashed %j', (raw, want) => {
    expect(normalizeSha256(raw)).toEqual({ value: want });
  });

  it.each([
    [h.slice(0, 40), 'hash_wrong_length'], // SHA-1 sized
    [h.slice(0, 32), 'hash_wrong_length'], // MD5 sized
    [`${h}0`, 'hash_wrong_length'],
    ['test@example.com', 'hash_malformed'],
    ['l5N+RjrIV4X1+Vr1ujkG7tstkxwk5pgkqJ6mXbpOgTs=', 'hash_malformed'],
    [`${h.slice(0, 63)}g`, 'hash_malformed'],
    ['', 'empty'],
  ])('rejects %j', (raw, code) => {
    expect(normalizeSha256(raw).warning?.code).toBe(code);
  });
});
