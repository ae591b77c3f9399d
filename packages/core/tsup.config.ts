import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// `shims` gives the CommonJS build an import.meta.url (the watchdog finds its script by it); without
// it esbuild empties import.meta there and warns.
export default defineConfig(packageBuilds([packageBuild({ shims: true })]));
