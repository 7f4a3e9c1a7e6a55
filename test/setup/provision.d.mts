/** Types of provision.mjs (the test setup's provisioning of fonts, photos, Chromium and PostgreSQL 15). */
export type Need = 'fonts' | 'photos' | 'chromium' | 'pg15';
export declare const ROOT: string;
export declare const CACHE: string;
export declare const FONTS_DIR: string;
export declare const FONTCONFIG_FILE: string;
export declare const BROWSER_FONTCONFIG_FILE: string;
export declare const SCRIPT_FONTS: { ar: string; he: string; hi: string; ja: string };
export declare const PHOTOS_DIR: string;
export declare const PG15_BIN: string;
export declare const ALL: Need[];
export declare class ProvisionError extends Error {}
export declare function chromiumPath(): string;
export declare function pg15Present(): boolean;
export declare function provision(needs?: Need[]): void;
export declare function provisionOrExit(needs?: Need[]): void;
