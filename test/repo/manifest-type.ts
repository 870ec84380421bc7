// The Slack app manifest's type as @slack/web-api declares it (the argument of apps.manifest.validate), made exact:
// the SDK's Manifest also allows any other top-level key, which would let a misspelt section through.
// test/repo/manifest-sdk.test.ts compiles manifest.yml's content against it (docs/development.md#layout-and-conventions).
import type { AppsManifestValidateArguments } from '@slack/web-api';

type SdkManifest = AppsManifestValidateArguments['manifest'];

/** `T` without its string index signature: only the keys it names are allowed. */
type KnownKeys<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/** The manifest as Slack's SDK types it, every level closed: an unknown or misspelt key is a type error. */
export type SlackManifest = KnownKeys<SdkManifest>;
