// Builds the Node.js client into dist/ (belote.mjs, the client; play.mjs, the game it plays):
// its TypeScript, on @belote/client (clients/ts, installed by npm ci from its built dist/),
// type-checked, then bundled by esbuild with every package it uses, so dist/ runs on Node.js
// alone.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
execFileSync(join(here, "node_modules/.bin/tsc"), ["-p", here], { stdio: "inherit" });

const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: { belote: join(here, "src/belote.ts"), play: join(here, "src/play.ts") },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: ["node18"],
  logLevel: "warning",
});
console.log(`built ${dist}`);
