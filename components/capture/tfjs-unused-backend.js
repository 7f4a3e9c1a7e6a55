// Stands in for the tfjs backends the capture page does not use (cpu, webgl, webgpu): Human imports them
// all, but the page runs tfjs on wasm only (see next.config.ts).
export {};
