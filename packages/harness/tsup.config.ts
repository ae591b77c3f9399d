import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// The library: ESM only (it imports execa), typed.
export default defineConfig(packageBuilds([packageBuild({ esmOnly: true })]));
