// Types of the face-detector build of Human (server/build-face-detector.mjs): Human's own.
export { Human } from '@vladmandic/human';
