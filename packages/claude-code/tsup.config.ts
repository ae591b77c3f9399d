import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

export default defineConfig(packageBuilds([packageBuild({ esmOnly: true })]));
