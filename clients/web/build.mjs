// Builds the web client into dist/: the page, on @belote/client (clients/ts, whose build
// generates the code of belote.v1; npm ci installs it), type-checked and bundled by esbuild
// with everything it imports, so `belote serve` serves it from its web port without any CDN.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));

// The types are checked before anything is bundled (esbuild itself only strips them).
execFileSync(join(here, "node_modules/.bin/tsc"), ["-p", here], { stdio: "inherit" });

const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile: join(dist, "app.js"),
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2020"],
  logLevel: "warning",
});
for (const file of ["index.html", "style.css"]) {
  copyFileSync(join(here, "static", file), join(dist, file));
}
console.log(`built ${dist}`);
