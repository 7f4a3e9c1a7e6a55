/**
 * The capture page's messages that are chosen by a code (`t(`errors.${code}`)`): each family and its members. The
 * catalogue test (lib/core/i18n/catalogues.test.ts) counts these as used, with every key written out in the source, and
 * fails on any family the source builds keys of that is not listed here (docs/capture-page.md "Adding a message").
 */
import type { useTranslations } from 'next-intl';
import { CHALLENGE_STEPS } from '@/lib/db/schema/liveness-challenge';
import type { Advice } from './face-check';
import type { ReasonCode } from '@/lib/domain/transitions/reasons';
import type { DocumentAdvice } from './document-guide/find-document';

/** The page's translator (`useTranslations()`, every key from the root of the catalogue). */
export type Translate = ReturnType<typeof useTranslations<never>>;

/** The server's codes the page explains in plain words (the media checks, limits, and what a person can act on). */
export const ERROR_MESSAGES = [
  'NO_FACE_DETECTED',
  'MULTIPLE_FACES',
  'FACE_TOO_BLURRY',
  'FACE_TOO_DARK',
  'FACE_TOO_BRIGHT',
  'FACE_OCCLUDED',
  'FACE_TOO_SMALL',
  'FACE_CUT_OFF',
  'DOCUMENT_NOT_FOUND',
  'DOCUMENT_TOO_BLURRY',
  'DOCUMENT_UNREADABLE',
  'IMAGE_TOO_SMALL',
  'IMAGE_TOO_LARGE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMIT',
  'ANALYSIS_QUEUE_FULL',
  'DATABASE_UNAVAILABLE',
  'INVALID_STATUS',
  'CONSENT_REQUIRED',
  'MISSING_REQUIRED_MEDIA',
  'NOT_FOUND',
  'network',
  'generic',
] as const;

/** Decision reasons a person can do something about (the others are not explained to them: docs/capture-page.md). */
export const REASON_MESSAGES = [
  'selfie_quality',
  'document_quality',
  'liveness_failed',
  'processing_error',
  'max_attempts_exceeded',
  'document_expired',
  'document_required',
] as const satisfies readonly ReasonCode[];

export const ADVICE_MESSAGES = [
  'noFace',
  'multipleFaces',
  'notCentred',
  'tooFar',
  'tooClose',
  'tooDark',
  'tooBright',
  'blurry',
  'ready',
] as const satisfies readonly Advice[];

/** The document step's live advice (components/capture/document-guide/find-document.ts; its code loads on that step only). */
export const DOCUMENT_ADVICE_MESSAGES = [
  'noDocument',
  'tooFar',
  'tooClose',
  'tooDark',
  'glare',
  'blurry',
  'ready',
] as const satisfies readonly DocumentAdvice[];

export const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** What can end a wallet's attempt, each in plain words (components/capture/WalletOffer.tsx, docs/wallet.md). */
export const WALLET_PROBLEMS = [
  'cancelled',
  'noWallet',
  'declined',
  'unsupported',
  'untrusted',
  'notShared',
  'expired',
  'invalid',
  'network',
] as const;
export type WalletProblem = (typeof WALLET_PROBLEMS)[number];

export const STEP_NAMES = ['consent', 'selfie', 'document', 'review', 'result'] as const;
export type StepName = (typeof STEP_NAMES)[number];

/** Family (the key's prefix) → the members the page may ask for. */
export const DYNAMIC_MESSAGE_KEYS: Record<string, readonly string[]> = {
  errors: ERROR_MESSAGES,
  reasons: REASON_MESSAGES,
  advice: ADVICE_MESSAGES,
  documentAdvice: DOCUMENT_ADVICE_MESSAGES,
  'challenge.turn': CHALLENGE_STEPS,
  'document.types': DOCUMENT_TYPES,
  steps: STEP_NAMES,
  'wallet.problems': WALLET_PROBLEMS,
};

const isOneOf = <T extends string>(list: readonly T[], s: string | null | undefined): s is T =>
  s != null && (list as readonly string[]).includes(s);
export const isErrorMessage = (s: string) => isOneOf(ERROR_MESSAGES, s);
export const isReasonMessage = (s: string | null) => isOneOf(REASON_MESSAGES, s);
