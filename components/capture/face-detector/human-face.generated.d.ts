// Types of the face-detector build of Human (scripts/build-face-detector.mjs): Human's own.
export { Human } from '@vladmandic/human';
