// Types of native-source.mjs, for the tests that import it.
export function nativePlatform(): string;
export function platformPackageName(root: string): string;
export function nativeSourceHash(root: string): string;
