import { describe, expect, it } from 'vitest';
import { isTfnNotQuotedCode, isValidAbn, isValidTfn, maskDigits, people, TFN_NOT_QUOTED_CODES, validate } from '../src/index.js';

describe('TFN check digit (ATO: weights 1,4,3,7,5,8,6,9,10; sum ≡ 0 mod 11)', () => {
  it.each(['123456782', '876543210', '459599230', '565051603'])('%s is valid', (tfn) => expect(isValidTfn(tfn)).toBe(true));
  it.each([
    ['123456789', 'last digit changed'],
    ['876543211', 'last digit changed'],
    ['213456782', 'two digits swapped'],
    ['12345678', '8 digits (a TFN has 9)'],
    ['1234567820', '10 digits'],
    ['12345678a', 'a letter'],
    ['123 456 782', 'spaces'],
    ['000000000', 'a not-quoted code, not a TFN (its sum is 0)'],
  ])('%s is not (%s)', (tfn) => expect(isValidTfn(tfn)).toBe(false));

  it('the ATO not-quoted codes are recognised and, but for 000000000, fail the check digit', () => {
    expect([...TFN_NOT_QUOTED_CODES]).toEqual(['000000000', '111111111', '333333333', '444444444', '987654321']);
    for (const code of TFN_NOT_QUOTED_CODES) expect(isTfnNotQuotedCode(code)).toBe(true);
    expect(isTfnNotQuotedCode('222222222')).toBe(false);
  });
});

describe('ABN check (ATO: first digit − 1, weights 10,1,3,…,19; sum ≡ 0 mod 89)', () => {
  it.each(['51824753556', '51 824 753 556', '53004085616', '33051775556'])('%s is valid', (abn) => expect(isValidAbn(abn)).toBe(true));
  it.each(['51824753557', '15824753556', '5182475355', '518247535560', '01824753556', '5182475355x', ''])('%s is not', (abn) =>
    expect(isValidAbn(abn)).toBe(false),
  );
});

describe('mask: all but the last 3 digits', () => {
  it.each([
    ['123456782', '******782'],
    ['458921', '***921'],
    ['123', '***'],
    ['', ''],
  ])('%s → %s', (s, masked) => expect(maskDigits(s)).toBe(masked));
});

describe('onboardingAdvance params: one shape per step, naming wrong and missing fields', () => {
  const params = people.onboardingAdvance.params;
  it.each([
    [{ id: 'emp_1' }, 'step: must be one of tax_declaration, super, contract'],
    [{ id: 'emp_1', step: 'tax_declaration' }, 'taxFileNumber: is required; residency: is required; claimsTaxFreeThreshold: is required'],
    [
      { id: 'emp_1', step: 'tax_declaration', taxFileNumber: '123456789', residency: 'resident', claimsTaxFreeThreshold: true },
      'taxFileNumber: must pass the ATO TFN check digit',
    ],
    [
      { id: 'emp_1', step: 'tax_declaration', taxFileNumber: '12345678', residency: 'resident', claimsTaxFreeThreshold: true },
      'taxFileNumber: must be 9 digits',
    ],
    [
      { id: 'emp_1', step: 'tax_declaration', taxFileNumber: '123456782', residency: 'foreign', claimsTaxFreeThreshold: true },
      'claimsTaxFreeThreshold: a foreign resident cannot claim',
    ],
    [
      { id: 'emp_1', step: 'tax_declaration', taxFileNumber: '123456782', residency: 'resident', claimsTaxFreeThreshold: true, title: 'x' },
      'title: unknown field',
    ],
    [
      { id: 'emp_1', step: 'super', fundName: 'Fund', fundAbn: '51824753557', memberNumber: 'M1' },
      'fundAbn: must pass the ABN check digits',
    ],
    [{ id: 'emp_1', step: 'super', fundName: 'Fund', fundAbn: '51824753556' }, 'memberNumber: is required'],
    [{ id: 'emp_1', step: 'contract' }, 'title: is required'],
  ])('%o → %s', (input, message) => {
    const r = validate(params, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(message);
  });

  it('a bad TFN is never echoed in the message', () => {
    const r = validate(params, {
      id: 'emp_1',
      step: 'tax_declaration',
      taxFileNumber: '123456789',
      residency: 'resident',
      claimsTaxFreeThreshold: true,
    });
    expect(!r.ok && r.message).not.toContain('123456789');
  });

  it('a valid ABN with spaces is kept as 11 digits', () => {
    const r = validate(params, { id: 'emp_1', step: 'super', fundName: 'Fund', fundAbn: '51 824 753 556', memberNumber: 'M1' });
    expect(r.ok && r.value).toMatchObject({ fundAbn: '51824753556' });
  });
});
