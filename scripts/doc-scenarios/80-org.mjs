// Organisation scenario for docs/methods.md: the profile an owner set,
// the org/* reads, and an agent paired with a one-time code.
import { createPairingCode } from '../../packages/server/dist/org/pairing.js';
import { setProfile } from '../../packages/server/dist/org/profile.js';

export async function run({ get, pair, org, db }) {
  await setProfile(db, {
    orgId: org.orgId,
    actor: org.owner.userId,
    patch: { legalName: 'Harbour Hospitality Pty Ltd', abn: '51824753556' },
  });
  await get('org/profile', {}, 'The organisation profile (an owner set the legal name and ABN)');
  await get('org/members', { limit: '10' }, 'People and the action classes each may decide');
  const created = await createPairingCode(db, {
    orgId: org.orgId,
    actor: org.owner.userId,
    request: { agentName: 'ledger-bot', tier: 'agent', ttlMinutes: 60 },
  });
  const paired = await pair({ code: created.code }, 'Exchange a one-time code (no Authorization header)');
  await pair({ code: created.code }, 'The same code again: used codes, like unknown or expired ones, are UNAUTHORIZED');
  await pair({ code: created.code, agentName: 'x' }, 'Strict body: an unknown field is BAD_REQUEST');
  await get('org/agents', {}, 'Agents with their tier, status and key ids');
  await get('org/keys', { limit: '3' }, 'The first page of API keys (ids and tiers, never secrets)');
  await get('org/keys', { agentId: paired.result.agentId }, "The paired agent's key");
}
