// The small ports the bot's services call out through (queue, card poster, response_url, user groups), and their
// results; the store ports sit beside this file (operation-store, freezes, delivery, break-glass, locks).
import type { OperationRecord } from '../../domain/engines/operation.js';
import type { Target } from '../../domain/model/target.js';

/** Puts an operation on its cluster's execution queue (BullMQ `flink-ops.<cluster>`, jobId `<op id>.<revision>`). */
export interface Enqueuer {
  enqueue(opId: string, revision: number, target: Pick<Target, 'cluster'>): Promise<void>;
  /**
   * A SCHEDULED operation's wake-up job, delayed until `runAt` (jobId `<op id>.<revision>.at<runAt>`,
   * docs/policy.md#scheduled-operations).
   */
  enqueueAt(opId: string, revision: number, target: Pick<Target, 'cluster'>, runAt: number, now: number): Promise<void>;
}

/**
 * `ok: false` carries Slack's error code (`not_in_channel`, `channel_not_found`, `ratelimited`, …) or the fault.
 * `leave`: nothing was posted and the operation is not this poster's to finish: another holds its card claim, or
 * whether its card is already in the channel could not be told; it stays ACCEPTED (docs/lifecycle.md#the-sweep).
 */
export type PostOutcome = { ok: true; ts: string } | { ok: false; error: string; leave?: true };

/**
 * Posts the card of a freshly recorded operation into its channel. Rendering and message metadata are the
 * Slack side's business, so the services stay free of Block Kit.
 */
export interface CardPoster {
  /**
   * `resuming`: the sweep's recovery of a stale ACCEPTED record, whose card may be out already: a card found in the
   * channel is the outcome, and none is posted.
   */
  postCard(record: OperationRecord, opts?: { resuming?: boolean }): Promise<PostOutcome>;
}

/** A message as sent through a `response_url`. */
export interface ResponseMessage {
  text: string;
  blocks?: unknown[];
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
  /** Removes the message the response_url belongs to (the command's ack bubble): docs/lifecycle.md#the-ack. */
  delete_original?: boolean;
}

/** Answers the person who typed a command or clicked a button, through the request's `response_url`. */
export interface Responder {
  respond(responseUrl: string, message: ResponseMessage): Promise<void>;
}

/** Members (Slack user ids) of a Slack user group (`usergroups.users.list`). */
export type UsergroupMembers = (usergroupId: string) => Promise<string[]>;

/**
 * Whether `user` is a member of `channel` (`conversations.members`, bounded): `unknown` when the bot cannot see the
 * channel or did not find out within its bound (docs/policy.md#incident-channels).
 */
export type ChannelMembership = (channel: string, user: string) => Promise<'member' | 'not-member' | 'unknown'>;

/** Results of the operation services: what happened, and what to tell the person who asked. */
export type RequestOutcome =
  | { type: 'refused'; message: string }
  /**
   * Recorded, card posted, and decided: DENIED, AWAITING_APPROVAL or QUEUED; or still ACCEPTED, left to the poster
   * that holds its card claim (or to the next sweep).
   */
  | { type: 'recorded'; record: OperationRecord }
  /** Recorded but the card could not be posted: CANCELLED, nothing enqueued. */
  | { type: 'cancelled'; record: OperationRecord; message: string };

export type ActionOutcome =
  { type: 'done'; record: OperationRecord; message: string } | { type: 'refused'; message: string };

export type * from './operation-store.js';
export type * from './freezes.js';
export type * from './delivery.js';
export type * from './break-glass.js';
export type * from './locks.js';
export type * from './after-completed.js';
export type * from './shared-readings.js';
