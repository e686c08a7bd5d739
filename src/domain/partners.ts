/**
 * Verification of partner-side identities (api-v2.md "Partner verification", DECISIONS.md
 * "Partners, pending things, webhooks", notes §15): a partner's application (or, for `email:`
 * identities, the website's claim page) records that a user holds an identity, which hands every
 * pending thing of the identity, its tips and its held shares to the user. Managing the partners
 * themselves (their OAuth client, webhook URL, events and signing secret) is src/webhooks/partners.ts.
 */
import { createHash } from 'node:crypto';
import { inTransaction } from '../db/transaction.ts';
import {
  claimPendingThings,
  findIdentityOwner,
  findPartnerByClientRowId,
  insertIdentity,
  listPendingThings,
  type PartnerRecord,
} from '../db/repositories/partners.ts';
import { accountBalance, postTransaction } from '../db/repositories/ledger.ts';
import { assignActivitiesToOwner } from '../db/repositories/activities.ts';
import { findUserById } from '../db/repositories/users.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';
import { parseIdentity } from './identities.ts';
import type { Principal } from './records.ts';
import { isEmailVerified } from './verification.ts';
import type { Services } from './services.ts';

export type { PartnerRecord };

/** A claim resting on an address that is not verified yet (403 `forbidden`): nothing changed. */
export class UnverifiedAddressError extends ForbiddenError {
  constructor() {
    super(
      'The e-mail address of the account is not verified yet: follow the link sent to it, then claim',
      'verification',
    );
  }
}

/**
 * `POST /user/verify` and `POST /users/:username/verify` (api-v2.md "Partner verification",
 * DECISIONS.md): the caller's token must have been issued to a partner's OAuth client; for the
 * second form the token's user must be `:username`. The identity must be valid and the partner
 * may verify it: `partner:<ns>:…` only for the partner of namespace `ns` (DECISIONS.md: the
 * identity is in the partner's namespace); the global `email:` and `twitter:user:id:` identities,
 * which no namespace holds, only for a partner the operator marked trusted (`tipjar partners update
 * NS --trusted`), whose word then stands for the user's address or account (the user's own Tipjar
 * address need not be verified). An identity already verified by another user
 * cannot be taken over. On success, in one transaction: the identities row, every pending thing
 * of the identity owned by the user (tips kept, the incoming activities re-pointed), and the
 * identity's held shares (`held:<identity>`) moved to the user's earnings. Verifying an identity
 * the user already holds is a success that changes nothing more (idempotent).
 * @returns the identity and the ids of the things claimed now.
 * @throws UnauthorizedError (401 `unauthorized`) in every refused case, with the reason.
 */
export async function verifyIdentity(
  s: Services,
  principal: Principal,
  rawIdentity: string | undefined,
  username?: string,
): Promise<{ identity: string; claimedThingIds: number[] }> {
  if (principal.clientId === null)
    throw new UnauthorizedError('Only a partner application may verify identities', 'verification');
  const partner = await findPartnerByClientRowId(s.database.db, principal.clientId);
  if (!partner) throw new UnauthorizedError('Only a partner application may verify identities', 'verification');
  if (username !== undefined && username.toLowerCase() !== principal.username.toLowerCase()) {
    throw new UnauthorizedError(`The access token does not belong to ${username}`, 'verification');
  }
  const id = parseIdentity(rawIdentity);
  if (!id)
    throw new UnauthorizedError(
      'Invalid identity: expected email:<md5>, twitter:user:id:<digits> or partner:<namespace>:<id>',
      'verification',
    );
  if (id.kind === 'partner' && id.namespace !== partner.namespace) {
    throw new UnauthorizedError(
      `Partner "${partner.namespace}" may not verify identities of namespace "${id.namespace}"`,
      'verification',
    );
  }
  if (id.kind !== 'partner' && !partner.trusted) {
    throw new UnauthorizedError(
      `Partner "${partner.namespace}" may not verify ${id.kind}: identities (only a partner the operator trusts may verify global identities)`,
      'verification',
    );
  }
  const claimed = await claimIdentity(s, principal.userId, id.identity, partner.id);
  if (claimed === null)
    throw new UnauthorizedError(
      `The identity ${id.identity} has already been verified by another account`,
      'verification',
    );
  return { identity: id.identity, claimedThingIds: claimed };
}

/**
 * Records that `userId` owns `identity` (verified by partner `partnerId`, or by the website's
 * claim page when null) and, in the same transaction, gives the user every pending thing of the
 * identity (tips kept, their incoming activities re-pointed) and moves the identity's held shares
 * (`held:<identity>`) to the user's earnings. A partner's claim has been checked by
 * verifyIdentity. A claim without a partner rests on the account's address, checked here in the
 * same transaction: the identity must be `email:<md5>` of the user's current address (trimmed,
 * lower-cased), and that address verified (src/domain/verification.ts).
 * @returns the ids of the things claimed now, or null when another user holds the identity
 *   (nothing changed). Of concurrent claims exactly one gets a list (identity is a primary key).
 * @throws UnverifiedAddressError (403 `forbidden`) when the matching address is not verified,
 *   ForbiddenError when the identity is not the address's or the user is unknown or deleted;
 *   nothing changed.
 */
export async function claimIdentity(
  s: Services,
  userId: number,
  identity: string,
  partnerId: number | null,
): Promise<number[] | null> {
  return inTransaction(s.database, async (trx) => {
    const now = s.clock.now();
    if (partnerId === null) {
      const user = await findUserById(trx, userId);
      if (!user || user.deletedAt !== null || !emailMatchesIdentity(user.email, identity))
        throw new ForbiddenError(`The e-mail address of the account is not the one of ${identity}`, 'verification');
      if (!isEmailVerified(user)) throw new UnverifiedAddressError();
    }
    if (!(await insertIdentity(trx, { identity, userId, partnerId, now }))) {
      const owner = await findIdentityOwner(trx, identity);
      if (owner?.userId !== userId) return null;
    }
    const thingIds = await claimPendingThings(trx, identity, userId, now);
    await assignActivitiesToOwner(trx, thingIds, userId);
    const held = await accountBalance(trx, { kind: 'held', identity });
    if (held !== 0) {
      await postTransaction(
        trx,
        {
          kind: 'claim',
          reference: `claim:${identity}:${now}:${userId}`,
          description: `held shares of ${identity} claimed by user ${userId}`,
          now,
        },
        [
          { account: { kind: 'held', identity }, amountCents: -held },
          { account: { kind: 'earnings', userId }, amountCents: held },
        ],
      );
    }
    return thingIds;
  });
}

/** A pending thing as the claim page lists it. */
export interface PendingThing {
  id: number;
  url: string;
  title: string;
  tips: number;
}

/**
 * What the website's claim page shows for an identity: its pending things (newest first, at most
 * `limit`) and who has verified it, if anyone.
 */
export async function getIdentityClaim(
  s: Services,
  identity: string,
  limit: number,
): Promise<{ pendingThings: PendingThing[]; holder?: { userId: number } }> {
  const [pendingThings, holder] = await Promise.all([
    listPendingThings(s.database.db, identity, limit),
    findIdentityOwner(s.database.db, identity),
  ]);
  return { pendingThings, ...(holder ? { holder: { userId: holder.userId } } : {}) };
}

/** True when `email` (trimmed, lower-cased) has the MD5 of an `email:<md5>` identity. */
export function emailMatchesIdentity(email: string, identity: string): boolean {
  const m = /^email:([0-9a-f]{32})$/.exec(identity);
  return (
    m !== null && email.trim() !== '' && createHash('md5').update(email.trim().toLowerCase()).digest('hex') === m[1]
  );
}
