import { pairingLimits } from '@finance-desk/protocol';

/**
 * How strong a person-chosen pairing secret is (refused as WEAK_SECRET). A small,
 * bounded estimate, no dictionary download: the secret (at most 128 characters, checked first)
 * is lower-cased and de-leeted, then every part that a guesser tries first is taken out — common
 * passwords and words, the organisation's name and slug, the agent's name, keyboard rows,
 * alphabetic and numeric runs, and repeats — and what is left is credited at log2 of the
 * character pool per character. At least `chosenSecretBitsMin` bits (60) must remain; the
 * reasons name what was found, never the secret.
 */
const COMMON = [
  'password',
  'passw0rd',
  'letmein',
  'welcome',
  'qwerty',
  'azerty',
  'dragon',
  'monkey',
  'master',
  'shadow',
  'sunshine',
  'princess',
  'football',
  'baseball',
  'cricket',
  'iloveyou',
  'admin',
  'administrator',
  'secret',
  'changeme',
  'default',
  'login',
  'trustno1',
  'superman',
  'batman',
  'starwars',
  'hello',
  'freedom',
  'whatever',
  'finance',
  'desk',
  'agent',
  'pairing',
  'pair',
  'code',
  'token',
  'access',
  'account',
  'books',
  'business',
  'company',
  'invoice',
  'payroll',
  'money',
  'summer',
  'winter',
  'spring',
  'autumn',
  'australia',
  'sydney',
  'melbourne',
  'brisbane',
  'perth',
  'adelaide',
  'january',
  'february',
  'march',
  'april',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'monday',
  'friday',
  'test',
  'demo',
  'guest',
  'user',
] as const;

const KEYBOARD_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', 'abcdefghijklmnopqrstuvwxyz'] as const;

const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };

export interface StrengthVerdict {
  readonly ok: boolean;
  readonly bits: number;
  readonly reasons: readonly string[];
}

function normalise(s: string): string {
  return [...s.toLowerCase()].map((c) => LEET[c] ?? c).join('');
}

function alnum(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Runs of 3+ characters that step by +1 or −1 (abc, 987) or along a keyboard row (qwe, asdf). */
function removeSequences(s: string): { rest: string; found: boolean } {
  let rest = '';
  let found = false;
  let i = 0;
  while (i < s.length) {
    let j = i + 1;
    const step = (a: string, b: string) =>
      Math.abs(a.charCodeAt(0) - b.charCodeAt(0)) === 1 || KEYBOARD_ROWS.some((row) => row.includes(a + b) || row.includes(b + a));
    while (j < s.length && step(s[j - 1] ?? '', s[j] ?? '')) j += 1;
    if (j - i >= 3) {
      found = true;
      rest += s[i];
    } else {
      rest += s.slice(i, j);
    }
    i = j;
  }
  return { rest, found };
}

/** Runs of one character (aaaa) and immediate repeats of a chunk (abcabc, 1212) keep one copy. */
function removeRepeats(s: string): { rest: string; found: boolean } {
  const collapsed = s.replace(/(.)\1{2,}/g, '$1').replace(/(.{2,}?)\1+/g, '$1');
  return { rest: collapsed, found: collapsed.length < s.length };
}

function poolSize(s: string): number {
  let pool = 0;
  if (/[a-z]/.test(s)) pool += 26;
  if (/[A-Z]/.test(s)) pool += 26;
  if (/[0-9]/.test(s)) pool += 10;
  if (/[^A-Za-z0-9]/.test(s)) pool += 33;
  return Math.max(pool, 1);
}

export function secretStrength(
  secret: string,
  context: { readonly orgName: string; readonly orgSlug: string; readonly agentName: string },
): StrengthVerdict {
  const reasons: string[] = [];
  if (secret.length < pairingLimits.chosenSecretCharsMin) {
    reasons.push(`shorter than ${pairingLimits.chosenSecretCharsMin} characters`);
  }
  if (secret.length > pairingLimits.chosenSecretCharsMax) {
    return { ok: false, bits: 0, reasons: [`longer than ${pairingLimits.chosenSecretCharsMax} characters`] };
  }
  // De-leeting maps one character to one, so a match in normalise(rest) is cut from rest itself.
  let rest = secret.toLowerCase();
  const cut = (needle: string): boolean => {
    let found = false;
    for (let at = normalise(rest).indexOf(needle); at >= 0; at = normalise(rest).indexOf(needle)) {
      rest = rest.slice(0, at) + rest.slice(at + needle.length);
      found = true;
    }
    return found;
  };
  const names = [context.orgName, context.orgSlug, context.agentName].map((n) => normalise(alnum(n))).filter((n) => n.length >= 3);
  const flat = normalise(alnum(secret));
  if (names.some((n) => flat.includes(n))) {
    reasons.push("contains the organisation's or the agent's name");
    // A name may be written with its separators (harbour-cafe): compare without them.
    rest = rest.replace(/[^a-z0-9]/g, '');
    for (const n of names) cut(n);
  }
  const words = [...COMMON].sort((a, b) => b.length - a.length).filter((w) => cut(normalise(w)));
  if (words.length > 0) reasons.push('contains a common password or word');
  const seq = removeSequences(rest);
  if (seq.found) reasons.push('contains a sequence (abc, 123, qwerty)');
  const rep = removeRepeats(seq.rest);
  if (rep.found) reasons.push('contains repeated characters or chunks');
  // The pool comes from the original characters: de-leeting must not lower the credit of real symbols.
  const bits = Math.floor(rep.rest.length * Math.log2(poolSize(secret)));
  const strongEnough = bits >= pairingLimits.chosenSecretBitsMin && secret.length >= pairingLimits.chosenSecretCharsMin;
  if (!strongEnough && bits < pairingLimits.chosenSecretBitsMin) {
    reasons.push(`too predictable: about ${bits} bits of guesswork left, at least ${pairingLimits.chosenSecretBitsMin} needed`);
  }
  return { ok: strongEnough, bits, reasons: strongEnough ? [] : reasons };
}
