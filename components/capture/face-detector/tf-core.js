/**
 * tfjs-core without what inference does not need: no gradients, optimizers or chained tensor methods
 * (index.js registers all three). The side effects kept are the ones core needs to run: the engine, the
 * flags, the platform (fetch, timers) and the tensor op handler. The build maps "@tensorflow/tfjs-core"
 * here for every package it bundles.
 */
import '@tensorflow/tfjs-core/dist/base_side_effects.js';

export * from '@tensorflow/tfjs-core/dist/base.js';
