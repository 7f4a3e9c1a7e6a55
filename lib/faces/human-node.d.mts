/** Human instance (the wasm build's type is Human from @vladmandic/human). */
export declare const HUMAN_CONFIG: Record<string, unknown>;
export declare function loadHuman(): Promise<import('@vladmandic/human').Human>;
